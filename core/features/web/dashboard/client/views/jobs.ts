// Job history: the account's jobs newest first, filtered by state, with
// results, cancel and "run again".
import { call, type JobList } from '../api.ts'
import { announce, errorBox, h, tableWrap, uid, when } from '../dom.ts'
import type { View } from '../context.ts'

type Job = JobList['jobs'][number]
const FILTERS = { all: 'All', running: 'Running', queued: 'Queued', done: 'Done', error: 'Failed' } as const
type Filter = keyof typeof FILTERS

/** A running job a worker has not taken yet reads stage 'queued' (README, Me). */
const stateOf = (job: Job): Exclude<Filter, 'all'> => (job.status === 'running' ? (job.stage === 'queued' ? 'queued' : 'running') : job.status)

export const jobsView: View = async (dashboard, main, { query }) => {
  const filter = (query.get('status') ?? 'all') in FILTERS ? (query.get('status') ?? 'all') as Filter : 'all'
  const list = await call<JobList>('GET', '/api/jobs?limit=200')
  const shown = list.jobs.filter(job => filter === 'all' || stateOf(job) === filter)
  const problem = h('div')
  const selectId = uid('filter')
  const select = h('select', { id: selectId, onchange: () => dashboard.go(`#jobs?status=${select.value}`) },
    Object.entries(FILTERS).map(([value, label]) => h('option', { value, selected: value === filter }, label)))

  const cancel = async (job: Job) => {
    try {
      await call('DELETE', `/api/tool-run/${encodeURIComponent(job.job_id)}`)
      announce(`Job ${job.job_id} cancelled.`)
      await jobsView(dashboard, main, { path: [], query })
    } catch (err) {
      problem.replaceChildren(errorBox((err as Error).message))
    }
  }
  const table = h('table', {},
    h('caption', {}, `${shown.length} of your ${list.count} most recent jobs`),
    h('thead', {}, h('tr', {}, ['Tool', 'State', 'Rows', 'Stage', 'Started', 'Ended', 'Actions'].map(c => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, shown.map(job => h('tr', { 'data-job-id': job.job_id },
      h('th', { scope: 'row' }, job.tool),
      h('td', {}, stateOf(job)),
      h('td', {}, String(job.records)),
      h('td', {}, job.stage),
      h('td', {}, when(job.created_at)),
      h('td', {}, when(job.finished_at)),
      h('td', { class: 'actions' },
        job.status !== 'running' ? h('a', { href: `#results/${encodeURIComponent(job.job_id)}` }, 'Results') : h('button', { type: 'button', class: 'danger', onclick: () => { void cancel(job) } }, 'Cancel'),
        ' ',
        h('a', { href: `#playground?rerun=${encodeURIComponent(job.job_id)}` }, 'Run again'))))))

  main.replaceChildren(
    h('h1', { tabindex: -1 }, 'Jobs'),
    h('div', { class: 'row' },
      h('label', { for: selectId }, 'Show'), select,
      h('button', { type: 'button', onclick: () => { void jobsView(dashboard, main, { path: [], query }) } }, 'Refresh')),
    problem,
    shown.length ? tableWrap('Jobs', table) : h('p', {}, filter === 'all' ? 'No job yet: start one from the playground.' : 'No job in that state.'))
}

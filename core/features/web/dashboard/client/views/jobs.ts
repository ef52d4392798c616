// Job history: the account's jobs newest first, each with its input in short,
// filtered by state, with results, cancel (after a confirmation) and "run
// again". While a job runs the list is read again every few seconds, so states,
// stages and row counts move on their own.
import { call, type JobList } from '../api.ts'
import { announce, errorBox, h, tableWrap, uid, when } from '../dom.ts'
import type { View } from '../context.ts'
import { cancelJob } from '../job-outcome.ts'

type Job = JobList['jobs'][number]
const FILTERS = { all: 'All', running: 'Running', queued: 'Queued', done: 'Done', error: 'Failed', cancelled: 'Cancelled' } as const
type Filter = keyof typeof FILTERS
/** How often a list with a running job is read again. */
const REFRESH_MS = 2000

/** A running job a worker has not taken yet reads stage 'queued' (README, Me). */
const stateOf = (job: Job): Exclude<Filter, 'all'> => (job.status === 'running' ? (job.stage === 'queued' ? 'queued' : 'running') : job.status)
const STATE_WORDS: Record<Exclude<Filter, 'all'>, string> = { running: 'running', queued: 'queued', done: 'done', error: 'failed', cancelled: 'cancelled' }

export const jobsView: View = async (dashboard, main, { query }) => {
  const filter = (query.get('status') ?? 'all') in FILTERS ? (query.get('status') ?? 'all') as Filter : 'all'
  const problem = h('div')
  const tableBox = h('div')
  const selectId = uid('filter')
  const select = h('select', { id: selectId, onchange: () => dashboard.go(`#jobs?status=${select.value}`) },
    Object.entries(FILTERS).map(([value, label]) => h('option', { value, selected: value === filter }, label)))
  let left = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let drawn = ''
  dashboard.onLeave(() => { left = true; clearTimeout(timer) })

  const cancel = async (job: Job) => {
    try {
      if (!await cancelJob(job.job_id)) return
      announce(`Job ${job.job_id} cancelled.`)
      await refresh()
    } catch (err) {
      problem.replaceChildren(errorBox((err as Error).message))
    }
  }
  const draw = (list: JobList) => {
    const shown = list.jobs.filter(job => filter === 'all' || stateOf(job) === filter)
    const table = h('table', {},
      h('caption', {}, `${shown.length} of your ${list.count} most recent jobs`),
      h('thead', {}, h('tr', {}, ['Tool', 'Input', 'State', 'Rows', 'Stage', 'Started', 'Ended', 'Actions'].map(c => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, shown.map(job => h('tr', { 'data-job-id': job.job_id },
        h('th', { scope: 'row' }, job.tool),
        h('td', { class: 'input' }, job.input),
        h('td', {}, h('span', { class: `state state-${stateOf(job)}` }, STATE_WORDS[stateOf(job)])),
        h('td', {}, String(job.records)),
        h('td', {}, job.stage),
        h('td', {}, when(job.created_at)),
        h('td', {}, when(job.finished_at)),
        h('td', { class: 'actions' },
          job.status !== 'running' ? h('a', { href: `#results/${encodeURIComponent(job.job_id)}` }, 'Results') : h('button', { type: 'button', class: 'danger', onclick: () => { void cancel(job) } }, 'Cancel…'),
          ' ',
          h('a', { href: `#playground?rerun=${encodeURIComponent(job.job_id)}` }, 'Run again'))))))
    tableBox.replaceChildren(shown.length ? tableWrap('Jobs', table) : h('p', {}, filter === 'all' ? 'No job yet: start one from the playground.' : 'No job in that state.'))
  }
  const refresh = async () => {
    clearTimeout(timer)
    const list = await call<JobList>('GET', '/api/jobs?limit=200')
    if (left) return
    // Drawn again only when something changed: a focused button is not taken away for nothing.
    const seen = JSON.stringify(list)
    if (seen !== drawn) { drawn = seen; draw(list) }
    if (list.jobs.some(job => job.status === 'running')) {
      timer = setTimeout(() => { refresh().catch((err: Error) => problem.replaceChildren(errorBox(err.message))) }, REFRESH_MS)
    }
  }
  await refresh()

  main.replaceChildren(
    h('h1', { tabindex: -1 }, 'Jobs'),
    h('div', { class: 'row' },
      h('label', { for: selectId }, 'Show'), select,
      h('button', { type: 'button', onclick: () => { refresh().catch((err: Error) => problem.replaceChildren(errorBox(err.message))) } }, 'Refresh')),
    problem,
    tableBox)
}

// Monitors: the account's monitors (schedule, state, next and last run) with
// run now, pause or resume and delete; #monitors/<id> lists its latest ticks
// and the changes of a run (added, removed, changed, duplicates). A monitor
// is created from the playground's form ("Monitor this").
import { call, type Monitor, type MonitorChanges, type MonitorRecord, type Monitors } from '../api.ts'
import { announce, cellText, confirmAction, errorBox, h, tableWrap, when } from '../dom.ts'
import type { View } from '../context.ts'

const scheduleText = (m: Monitor) => ('cron' in m.schedule ? `cron ${m.schedule.cron} (${m.schedule.tz})` : `every ${m.schedule.every}`)
const id = (value: string) => encodeURIComponent(value)

export const monitorsView: View = async (dashboard, main, params) => {
  if (params.path[1]) return monitorView(dashboard, main, params)
  const list = await call<Monitors>('GET', '/api/monitors')
  const problem = h('div')
  const act = async (label: string, run: () => Promise<unknown>) => {
    try {
      await run()
      announce(label)
      await monitorsView(dashboard, main, params)
    } catch (err) {
      problem.replaceChildren(errorBox((err as Error).message))
    }
  }
  const table = h('table', {},
    h('caption', {}, `${list.count} monitors`),
    h('thead', {}, h('tr', {}, ['Name', 'Tool', 'Schedule', 'State', 'Next run', 'Last run', 'Actions'].map(c => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, list.monitors.map(m => h('tr', { 'data-monitor-id': m.monitor_id },
      h('th', { scope: 'row' }, h('a', { href: `#monitors/${id(m.monitor_id)}` }, m.name)),
      h('td', {}, m.tool),
      h('td', {}, scheduleText(m)),
      h('td', {}, m.status === 'paused' ? `paused: ${m.paused_reason ?? ''}` : 'active'),
      h('td', {}, when(m.next_run_at)),
      h('td', {}, m.last_run_id ? h('a', { href: `#results/${id(m.last_run_id)}` }, 'Results') : '—'),
      h('td', { class: 'actions' },
        h('button', { type: 'button', onclick: () => { void act('Run started.', () => call('POST', `/api/monitors/${id(m.monitor_id)}/run`)) } }, 'Run now'), ' ',
        m.status === 'paused'
          ? h('button', { type: 'button', onclick: () => { void act('Monitor resumed.', () => call('POST', `/api/monitors/${id(m.monitor_id)}/resume`)) } }, 'Resume')
          : h('button', { type: 'button', onclick: () => { void act('Monitor paused.', () => call('POST', `/api/monitors/${id(m.monitor_id)}/pause`)) } }, 'Pause'), ' ',
        h('button', {
          type: 'button',
          class: 'danger',
          onclick: () => { void confirmAction(`Delete the monitor "${m.name}"? Its runs stay in your jobs.`, 'Delete').then(async yes => { if (yes) await act('Monitor deleted.', () => call('DELETE', `/api/monitors/${id(m.monitor_id)}`)) }) },
        }, 'Delete'))))))
  main.replaceChildren(
    h('h1', { tabindex: -1 }, 'Monitors'),
    h('p', {}, 'A monitor runs a tool on a schedule and reports what changed since its last successful run. Create one from the ', h('a', { href: '#playground' }, 'playground'), ' ("Monitor this").'),
    problem,
    list.count ? tableWrap('Monitors', table) : h('p', {}, 'No monitor yet.'))
}

const monitorView: View = async (_dashboard, main, { path, query }) => {
  const monitorId = path[1]!
  const record = await call<MonitorRecord>('GET', `/api/monitors/${id(monitorId)}`)
  const run = query.get('run') ?? record.runs.find(r => r.changes)?.job_id ?? null
  const changesBox = h('div')
  const runs = h('table', {},
    h('caption', {}, 'Latest ticks, newest first'),
    h('thead', {}, h('tr', {}, ['Tick', 'Trigger', 'State', 'Rows', 'Added', 'Removed', 'Changed', 'Duplicates', ''].map(c => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, record.runs.map(r => h('tr', {},
      h('th', { scope: 'row' }, when(r.tick)),
      h('td', {}, r.trigger),
      h('td', {}, r.skipped ? `skipped: ${r.skipped}` : r.error ? `${r.status}: ${r.error}` : r.status),
      h('td', {}, r.records === null ? '—' : String(r.records)),
      ...['added', 'removed', 'changed', 'duplicates'].map(k => h('td', {}, r.changes ? String(r.changes[k] ?? 0) : '—')),
      h('td', {}, r.job_id && r.changes ? h('a', { href: `#monitors/${id(monitorId)}?run=${id(r.job_id)}` }, 'Changes') : '')))))
  if (run) {
    try {
      const changes = await call<MonitorChanges>('GET', `/api/monitors/${id(monitorId)}/changes?run=${id(run)}&limit=200`)
      changesBox.replaceChildren(...changeTables(changes))
    } catch (err) {
      changesBox.replaceChildren(errorBox((err as Error).message))
    }
  }
  main.replaceChildren(
    h('h1', { tabindex: -1 }, record.name),
    h('p', {}, `${record.tool}, ${scheduleText(record)}; ${record.status === 'paused' ? `paused: ${record.paused_reason ?? ''}` : `next run ${when(record.next_run_at)}`}`),
    h('p', {}, h('a', { href: '#monitors' }, 'All monitors')),
    record.runs.length ? tableWrap('Runs', runs) : h('p', {}, 'No run yet.'),
    changesBox)
}

function changeTables (c: MonitorChanges): HTMLElement[] {
  const section = (title: string, items: unknown[], columns: string[], cells: (item: Record<string, unknown>) => string[]) => h('section', {},
    h('h2', {}, `${title} (${items.length})`),
    items.length
      ? tableWrap(title, h('table', {},
        h('thead', {}, h('tr', {}, columns.map(col => h('th', { scope: 'col' }, col)))),
        h('tbody', {}, items.map(item => h('tr', {}, cells(item as Record<string, unknown>).map(text => h('td', {}, text)))))))
      : h('p', {}, 'None.'))
  return [
    h('h2', {}, `Changes of run ${c.run}`),
    section('Added', c.added, ['Row', 'Watched fields'], i => [cellText(i.key), cellText(i.after)]),
    section('Removed', c.removed, ['Row', 'Last seen'], i => [cellText(i.key), cellText(i.before)]),
    section('Changed', c.changed, ['Row', 'Before → after'], i => [cellText(i.key), Object.entries((i.fields ?? {}) as Record<string, { before: unknown, after: unknown }>).map(([f, v]) => `${f}: ${cellText(v.before)} → ${cellText(v.after)}`).join('; ')]),
    section('Duplicates', c.duplicates, ['Row', 'Occurrence'], i => [cellText(i.key), String(i.occurrence)]),
  ]
}

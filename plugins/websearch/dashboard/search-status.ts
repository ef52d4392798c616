// The search status record (GET /api/search/status), readable: which engines
// answer, which are blocked or cooling down, which providers have keys.
import { h, statusRecord, tableWrap, type View } from '../../../core/features/web/dashboard/client/view-kit.ts'

/**
 * The fields shown, read and not validated: this is browser code, which imports
 * only the dashboard's view kit, not the plugin's schemas.
 */
interface SearchStatus {
  providers: Record<string, boolean>
  proxy_configured: boolean
  google_ready: boolean
  google_cooldown_active: boolean
  last_google_block_reason: string
  engines: string[]
  engine_health_observed: boolean
  engine_health: Record<string, { ok: boolean, kind: string, reason: string, age_s: number, cooldown_remaining_s?: number, backend?: string }>
  recommended_engine: string
  note: string
}

const yesNo = (v: boolean) => (v ? 'yes' : 'no')

const searchView: View = async (_dashboard, main) => {
  const status = await statusRecord<SearchStatus>(main, '/api/search/status', { title: 'Search engines', off: 'Web search is not enabled on this server.' })
  if (!status) return
  const rows = status.engines.map(engine => {
    const health = status.engine_health[engine]
    const state = !health ? 'not tried yet' : health.kind === 'ok' ? 'working' : health.kind
    return h('tr', {},
      h('th', { scope: 'row' }, engine, health?.backend ? ` (${health.backend})` : ''),
      h('td', { class: `state-${health?.kind ?? 'unknown'}` }, state),
      h('td', {}, health?.reason ?? ''),
      h('td', {}, health ? `${health.age_s} s ago` : '—'),
      h('td', {}, health?.cooldown_remaining_s ? `${health.cooldown_remaining_s} s` : '—'))
  })
  const providers = Object.entries(status.providers).map(([name, on]) => `${name}: ${on ? 'key set' : 'no key'}`).join(', ')
  main.replaceChildren(
    h('h1', { tabindex: -1 }, 'Search engines'),
    h('section', { class: 'card' },
      h('dl', { class: 'facts' },
        h('dt', {}, 'Recommended engine'), h('dd', {}, status.recommended_engine),
        h('dt', {}, 'API providers'), h('dd', {}, providers),
        h('dt', {}, 'Proxy configured'), h('dd', {}, yesNo(status.proxy_configured)),
        h('dt', {}, 'Google ready'), h('dd', {}, `${yesNo(status.google_ready)}${status.google_cooldown_active ? ' (cooling down)' : ''}`),
        status.last_google_block_reason ? [h('dt', {}, 'Last Google block'), h('dd', {}, status.last_google_block_reason)] : null),
      h('p', {}, status.note)),
    h('section', { class: 'card', 'aria-labelledby': 'engines-title' },
      h('h2', { id: 'engines-title' }, 'Engines'),
      status.engine_health_observed ? null : h('p', {}, 'No search has run since the server started: states show after the first one.'),
      tableWrap('Engines', h('table', {},
        h('thead', {}, h('tr', {}, ['Engine', 'State', 'Last answer', 'Checked', 'Cooldown left'].map(c => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, rows)))))
}

export default searchView

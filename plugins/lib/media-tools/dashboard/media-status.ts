// The media platforms status record (GET /api/media/status), readable: per
// platform, when a yt-dlp run last read it, when it last refused and why, and
// how many refusals in a row, so a wall (a login, a bot check) shows here
// before the users report it.
import { h, statusRecord, tableWrap, type View } from '../../../../core/features/web/dashboard/client/view-kit.ts'

/**
 * The fields shown, read and not validated: this is browser code, which imports
 * only the dashboard's view kit, not the plugin's schemas.
 */
interface PlatformHealth {
  name: string
  last_success_at: string | null
  last_refusal_at: string | null
  last_refusal_kind: string | null
  last_refusal_message: string | null
  consecutive_refusals: number
}

interface MediaStatus {
  platforms: Record<string, PlatformHealth>
  note: string
}

/** "3 min ago" from an ISO time, against this browser's clock. */
function ago (iso: string | null): string {
  if (!iso) return '—'
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000))
  if (Number.isNaN(seconds)) return '—'
  if (seconds < 90) return `${seconds} s ago`
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min ago`
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h ago`
  return `${Math.round(seconds / 86_400)} days ago`
}

function stateOf (p: PlatformHealth): { text: string, kind: string } {
  if (p.consecutive_refusals > 0) return { text: `refusing (${p.consecutive_refusals} in a row)`, kind: 'blocked' }
  if (p.last_success_at) return { text: 'working', kind: 'ok' }
  return { text: 'not tried yet', kind: 'unknown' }
}

const mediaView: View = async (_dashboard, main) => {
  const status = await statusRecord<MediaStatus>(main, '/api/media/status', { title: 'Media platforms', off: 'No media tool is enabled on this server.' })
  if (!status) return
  const rows = Object.values(status.platforms).map(p => {
    const state = stateOf(p)
    return h('tr', {},
      h('th', { scope: 'row' }, p.name),
      h('td', { class: `state-${state.kind}` }, state.text),
      h('td', {}, ago(p.last_success_at)),
      h('td', {}, ago(p.last_refusal_at)),
      h('td', {}, p.last_refusal_kind ? p.last_refusal_kind.replace(/_/g, ' ') : '—'),
      h('td', {}, p.last_refusal_message ?? ''))
  })
  main.replaceChildren(
    h('h1', { tabindex: -1 }, 'Media platforms'),
    // The note says what to do about each platform refusing now, or that nothing was read yet.
    h('section', { class: 'card' }, h('p', {}, status.note)),
    h('section', { class: 'card', 'aria-labelledby': 'platforms-title' },
      h('h2', { id: 'platforms-title' }, 'Platforms'),
      tableWrap('Platforms', h('table', {},
        h('thead', {}, h('tr', {}, ['Platform', 'State', 'Last read', 'Last refused', 'Refused by', 'What it said'].map(c => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, rows)))))
}

export default mediaView

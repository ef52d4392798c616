// The account: the key (masked; copy; regenerate after a confirmation; shown
// in full once, right after it is made), the tier, usage against its limits,
// and the Pro trial when the account may claim it.
import { call, session, type Regenerated, type Signup } from '../api.ts'
import { announce, confirmAction, copyText, errorBox, h, uid, fill } from '../dom.ts'
import type { Dashboard, View } from '../context.ts'

const masked = (key: string) => `${key.slice(0, 3)}…${key.slice(-4)}`

/** A secret shown once: the value, a copy button, and "I have saved it", which removes it from the page. */
export function freshSecretPanel (label: string, value: string): HTMLElement {
  const title = uid('h')
  const status = h('span', { class: 'muted' })
  const panel = h('section', { class: 'card once', 'aria-labelledby': title, 'data-secret': '' },
    h('h2', { id: title }, label),
    h('p', {}, 'Shown once: copy it now. It is not shown again on this page.'),
    h('code', { class: 'secret', 'data-secret-value': '' }, value),
    h('div', { class: 'row' },
      h('button', { type: 'button', onclick: async () => { status.textContent = (await copyText(value)) ? 'Copied.' : 'Copy refused by the browser: select the text instead.' } }, 'Copy'),
      h('button', { type: 'button', onclick: () => { panel.remove(); announce(`${label} hidden.`) } }, 'I have saved it'),
      status))
  return panel
}

function meter (label: string, value: number, max: number, note?: string): HTMLElement {
  const id = uid('m')
  return h('div', { class: 'meter' },
    h('label', { for: id }, label),
    h('meter', { id, min: 0, max: Math.max(max, 1), value, low: Math.max(max, 1) * 0.7, high: Math.max(max, 1) * 0.9, optimum: 0 }),
    h('span', { class: 'figure' }, `${value.toLocaleString()} of ${max.toLocaleString()}${note ? ` ${note}` : ''}`))
}

export const accountView: View = async (dashboard: Dashboard, main) => {
  const me = await dashboard.refreshMe()
  const user = me.user!
  const key = session.key() ?? ''
  const fresh = dashboard.takeFreshSecret()
  const keyStatus = h('span', { class: 'muted', role: 'status' })
  const regenerateError = h('div')

  const regenerate = async () => {
    if (!await confirmAction('Make a new personal key? The current key stops working at once, in every script and agent that uses it.', 'Make a new key')) return
    try {
      const answer = await call<Regenerated>('POST', '/api/auth/regenerate-key')
      session.set(answer.api_key)
      dashboard.giveFreshSecret('Your new personal key', answer.api_key)
      await accountView(dashboard, main, { path: [], query: new URLSearchParams() })
      announce('A new key was made; the previous one no longer works.')
    } catch (err) {
      regenerateError.replaceChildren(errorBox((err as Error).message))
    }
  }

  const usage = me.usage
  const limits = me.limits
  const offerPro = user.pro_eligible && me.tier !== 'pro' && user.pro_expires_at === null
  const claimError = h('div')
  const claim = async () => {
    try {
      await call<Signup>('POST', '/api/auth/claim-pro')
      announce('Pro trial started.')
      await accountView(dashboard, main, { path: [], query: new URLSearchParams() })
    } catch (err) {
      claimError.replaceChildren(errorBox((err as Error).message))
    }
  }

  fill(main,
    h('h1', { tabindex: -1 }, 'Account'),
    fresh ? freshSecretPanel(fresh.label, fresh.value) : null,
    h('section', { class: 'card', 'aria-labelledby': 'key-title' },
      h('h2', { id: 'key-title' }, 'Personal key'),
      h('p', {}, 'Send it in the ', h('code', {}, 'x-api-key'), ' header. It is kept in this tab only and forgotten when you log out or close the tab.'),
      h('p', {}, h('code', { 'data-key-masked': '' }, masked(key)), ' ',
        h('button', { type: 'button', onclick: async () => { keyStatus.textContent = (await copyText(key)) ? 'Copied.' : 'Copy refused by the browser.' } }, 'Copy key'), ' ',
        h('button', { type: 'button', class: 'danger', onclick: regenerate }, 'Regenerate…'), ' ', keyStatus),
      regenerateError),
    h('section', { class: 'card', 'aria-labelledby': 'plan-title' },
      h('h2', { id: 'plan-title' }, `Plan: ${me.tier}`),
      h('p', {}, `${user.name || user.email} · ${user.email}`),
      user.pro_expires_at ? h('p', {}, `Pro until ${new Date(user.pro_expires_at).toLocaleDateString()}.`) : null,
      offerPro
        ? h('div', { class: 'offer' },
          h('p', {}, 'Your account may try Pro for 30 days, once: more rows per run, more calls, longer retention.'),
          h('button', { type: 'button', class: 'primary', onclick: claim }, 'Start the Pro trial'), claimError)
        : null),
    h('section', { class: 'card', 'aria-labelledby': 'usage-title' },
      h('h2', { id: 'usage-title' }, 'Usage'),
      usage
        ? h('div', { class: 'meters' },
          meter('Calls today', usage.calls_today, limits.calls_per_day),
          meter('Calls this month', usage.calls_this_month, limits.calls_per_month),
          meter('Running jobs', usage.jobs_running, limits.max_running_jobs),
          meter('Queued jobs', usage.jobs_queued, limits.max_queued_jobs))
        : null,
      h('dl', { class: 'facts' },
        h('dt', {}, 'Records today'), h('dd', {}, `${usage?.records_today.toLocaleString() ?? 0} (at most ${limits.max_records_per_run.toLocaleString()} per run)`),
        h('dt', {}, 'Results kept'), h('dd', {}, `${limits.retention_hours} hours after a job ends`),
        h('dt', {}, 'Rate limit'), h('dd', {}, `${limits.rate_limit_per_minute} requests a minute`),
        h('dt', {}, 'Files'), h('dd', {}, `${limits.max_file_mb} MB a file, ${limits.max_job_files_mb} MB a job`))))
}

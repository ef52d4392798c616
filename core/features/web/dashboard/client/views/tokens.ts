// Scoped tokens: mint one for chosen tools (shown once), list them with their
// last use, revoke.
import { call, type MintedToken, type TokenList } from '../api.ts'
import { announce, confirmAction, errorBox, field, h, tableWrap, uid, when, fill } from '../dom.ts'
import type { View } from '../context.ts'
import { freshSecretPanel } from './account.ts'

export const tokensView: View = async (dashboard, main) => {
  const [tools, list] = await Promise.all([dashboard.tools(), call<TokenList>('GET', '/api/auth/tokens')])
  const fresh = dashboard.takeFreshSecret()
  const name = h('input', { type: 'text', name: 'token-name', required: true, maxlength: 200, autocomplete: 'off' })
  const days = h('input', { type: 'number', name: 'expires', min: 1, max: 3650, inputmode: 'numeric' })
  const mintError = h('div')
  const legend = uid('lg')
  const toolBoxes = tools.map(tool => {
    const box = h('input', { type: 'checkbox', name: 'tools', value: tool.key, id: uid('tool') })
    return { box, label: h('label', { for: box.id, class: 'check' }, box, ` ${tool.title} (${tool.key})`) }
  })
  const form = h('form', { 'aria-labelledby': 'mint-title' },
    h('h2', { id: 'mint-title' }, 'New scoped token'),
    h('p', {}, 'A token runs only the tools you pick and sees only their jobs. Give one to a script or an agent instead of your personal key.'),
    field('Name', name, 'What it is for, e.g. "CRM import".'),
    h('fieldset', { 'aria-labelledby': legend },
      h('legend', { id: legend }, 'Tools it may run'),
      h('div', { class: 'checks' }, toolBoxes.map(t => t.label))),
    field('Expires after (days, optional)', days),
    mintError,
    h('button', { type: 'submit', class: 'primary' }, 'Mint token'))
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const chosen = toolBoxes.filter(t => t.box.checked).map(t => t.box.value)
    if (!chosen.length) { mintError.replaceChildren(errorBox('Pick at least one tool.')); return }
    try {
      const minted = await call<MintedToken>('POST', '/api/auth/tokens', { name: name.value.trim(), tools: chosen, ...(days.value ? { expires_in_days: Number(days.value) } : {}) })
      dashboard.giveFreshSecret(`Token "${minted.name}"`, minted.token)
      await tokensView(dashboard, main, { path: [], query: new URLSearchParams() })
      announce(`Token ${minted.name} minted.`)
    } catch (err) {
      mintError.replaceChildren(errorBox((err as Error).message))
    }
  })

  const listError = h('div')
  const rows = list.tokens.map(token => {
    const state = token.revoked_at ? `revoked ${when(token.revoked_at)}` : token.expires_at && new Date(token.expires_at) < new Date() ? 'expired' : 'active'
    return h('tr', { 'data-token-id': token.id },
      h('th', { scope: 'row' }, token.name),
      h('td', {}, token.tools.join(', ')),
      h('td', {}, when(token.created_at)),
      h('td', {}, token.last_used_at ? when(token.last_used_at) : 'never'),
      h('td', {}, token.expires_at ? when(token.expires_at) : 'never'),
      h('td', {}, state),
      h('td', {}, token.revoked_at
        ? null
        : h('button', {
          type: 'button',
          class: 'danger',
          'aria-label': `Revoke ${token.name}`,
          onclick: async () => {
            if (!await confirmAction(`Revoke the token "${token.name}"? Whatever uses it stops working at once.`, 'Revoke')) return
            try {
              await call('DELETE', `/api/auth/tokens/${encodeURIComponent(token.id)}`)
              await tokensView(dashboard, main, { path: [], query: new URLSearchParams() })
              announce(`Token ${token.name} revoked.`)
            } catch (err) {
              listError.replaceChildren(errorBox((err as Error).message))
            }
          },
        }, 'Revoke')))
  })
  const table = h('table', {},
    h('caption', {}, `${list.count} token${list.count === 1 ? '' : 's'}`),
    h('thead', {}, h('tr', {}, ['Name', 'Tools', 'Created', 'Last used', 'Expires', 'State', 'Action'].map(c => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows))

  fill(main,
    h('h1', { tabindex: -1 }, 'Scoped tokens'),
    fresh ? freshSecretPanel(fresh.label, fresh.value) : null,
    h('section', { class: 'card' }, form),
    h('section', { class: 'card', 'aria-labelledby': 'tokens-title' }, h('h2', { id: 'tokens-title' }, 'Your tokens'), listError, list.count ? tableWrap('Scoped tokens', table) : h('p', {}, 'No token yet.')))
}

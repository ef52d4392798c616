// Element building with text only: every value from the server or the person
// becomes a text node or an attribute value, never markup (no innerHTML), so
// a scraped title like "<img onerror=…>" is shown, not run.
type Child = Node | string | number | null | undefined | false
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>

export function h<K extends keyof HTMLElementTagNameMap> (tag: K, attrs: Attrs = {}, ...children: Array<Child | Child[]>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value)
    else if (value === true) el.setAttribute(name, '')
    else el.setAttribute(name, String(value))
  }
  append(el, children)
  return el
}

export function append (parent: Node, children: Array<Child | Child[]>): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child)
  }
}

/** Replaces an element's content. */
export function fill (parent: Element, ...children: Array<Child | Child[]>): void {
  parent.replaceChildren()
  append(parent, children)
}

let ids = 0
/** A unique id for label/for and aria-describedby pairs. */
export const uid = (prefix: string) => `${prefix}-${++ids}`

/** Short status text in the page's live region (read out by screen readers). */
export function announce (text: string): void {
  const toast = document.getElementById('toast')
  if (toast) toast.textContent = text
}

/** A labelled field: label, control, optional help text tied to it. */
export function field (label: string, control: HTMLElement, help?: string | Node): HTMLElement {
  const id = control.id || uid('f')
  control.id = id
  const helpId = help ? `${id}-help` : undefined
  if (helpId) control.setAttribute('aria-describedby', helpId)
  return h('div', { class: 'field' },
    h('label', { for: id }, label),
    control,
    help ? h('p', { class: 'help', id: helpId }, help) : null)
}

/** An error box (role=alert) for a failed action. */
export const errorBox = (text: string) => h('p', { class: 'error', role: 'alert' }, text)

/** A dialog asking to confirm; resolves true on confirm. */
export function confirmAction (question: string, confirmLabel: string, keepLabel = 'Cancel'): Promise<boolean> {
  return new Promise(resolve => {
    const title = uid('dlg')
    const dialog = h('dialog', { 'aria-labelledby': title },
      h('p', { id: title }, question),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'danger', 'data-confirm': '', onclick: () => { dialog.close('yes') } }, confirmLabel),
        h('button', { type: 'button', onclick: () => { dialog.close('no') } }, keepLabel)))
    dialog.addEventListener('close', () => { dialog.remove(); resolve(dialog.returnValue === 'yes') })
    document.body.append(dialog)
    dialog.showModal()
  })
}

/** Writes text to the clipboard; false when the browser refuses (insecure origin, permissions). */
export async function copyText (text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    return false
  }
}

/** A value of a result row as display text: objects and lists as JSON, long text cut. */
export function cellText (value: unknown, max = 300): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value)
  return text.length > max ? `${text.slice(0, max)}…` : text
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—')

/** A scrollable table wrapper that keyboard users can scroll too. */
export const tableWrap = (label: string, table: HTMLTableElement) => h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': label }, table)

// Visible text of an HTML document, with a line break at every block boundary.
// cheerio's .text() glues adjacent cells and paragraphs together
// ("Tel: 030 123</td><td>Fax: 030 456" becomes one digit run, "a@b.de</p><p>Next"
// becomes "a@b.deNext"), which breaks e-mail and phone matching. Inline elements are
// joined without a separator so "info<span>@</span>acme.com" stays one address.
import type { CheerioAPI } from 'cheerio'

/** The slice of a domhandler node this walker reads (cheerio's node type, structurally). */
interface DomNode {
  type: string
  name?: string
  data?: string
  attribs?: Record<string, string>
  children?: DomNode[]
}

/** Elements whose text is never shown to a reader. */
export const INVISIBLE_ELEMENTS = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'math', 'head', 'title', 'meta', 'link',
  'iframe', 'object', 'embed', 'canvas', 'video', 'audio', 'select', 'option', 'datalist',
])

/** Elements that start a new line of text (HTML block and table-layout elements). */
export const BLOCK_ELEMENTS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'dd', 'details', 'dialog',
  'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4',
  'h5', 'h6', 'header', 'hgroup', 'hr', 'html', 'legend', 'li', 'main', 'nav', 'ol', 'p', 'pre',
  'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'button',
  'input', 'textarea', 'label', 'img',
])

export interface VisibleTextOptions {
  /** Extra element names to leave out (e.g. 'nav' for readable text). */
  skip?: ReadonlySet<string>
}

function isHidden (node: DomNode): boolean {
  const attribs = node.attribs
  if (!attribs) return false
  if ('hidden' in attribs) return true
  if (attribs['aria-hidden'] === 'true') return true
  const style = attribs.style
  return style !== undefined && /display\s*:\s*none|visibility\s*:\s*hidden/i.test(style)
}

/** Visible text of the nodes in `$` (the whole document by default), one block per line. */
export function visibleText ($: CheerioAPI, options: VisibleTextOptions = {}): string {
  const parts: string[] = []
  const walk = (node: DomNode): void => {
    if (node.type === 'text') {
      parts.push(node.data ?? '')
      return
    }
    // domhandler gives <script> and <style> their own node types.
    if (node.type === 'script' || node.type === 'style' || node.type === 'comment' || node.type === 'directive' || node.type === 'cdata') return
    const name = node.name?.toLowerCase()
    if (name !== undefined) {
      if (INVISIBLE_ELEMENTS.has(name) || options.skip?.has(name) || isHidden(node)) return
    }
    const block = name !== undefined && BLOCK_ELEMENTS.has(name)
    if (block) parts.push('\n')
    for (const child of node.children ?? []) walk(child)
    if (block) parts.push('\n')
  }
  for (const root of $.root().toArray() as unknown as DomNode[]) walk(root)
  return tidyText(parts.join(''))
}

/** Collapses runs of spaces inside lines and blank lines between them; non-breaking spaces become spaces. */
export function tidyText (text: string): string {
  return text
    .replace(/[\u00a0\u2007\u202f\t\f\v ]+/g, ' ')
    .replace(/ *\r?\n[\s]*/g, '\n')
    .trim()
}

/** At most `max` characters of `text`: its first and last halves when it is longer (contact details sit at the top or in the footer). */
export function headAndTail (text: string, max: number): string {
  if (text.length <= max) return text
  const half = Math.floor(max / 2)
  return `${text.slice(0, half)}\n${text.slice(text.length - half)}`
}

// The one way pages put data into HTML: the `html` tagged template escapes
// every interpolated value unless it is already `Html` (a nested template, or
// markup the blog sanitizer produced, wrapped with `trustedHtml`). Attribute
// values must be written in double or single quotes (`href="${url}"`): the
// escaping covers both, never an unquoted attribute. URLs that reach `href`
// or `src` go through `safeUrl` first, which keeps only http(s) and paths.

/** Markup that is safe to emit as is. Only `html` and `trustedHtml` make one. */
export class Html {
  constructor (readonly text: string) {}
  toString (): string { return this.text }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text as HTML text or a quoted attribute value: `& < > " '` become entities, nothing else changes. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, c => ESCAPES[c]!)

/** What a template may interpolate: text and numbers (escaped), Html (kept), lists of either, and nothing (omitted). */
export type HtmlValue = string | number | Html | null | undefined | false | readonly HtmlValue[]

function render (value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

export function html (strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!
  return new Html(out)
}

/**
 * Markup that has already been made safe elsewhere: blog content and excerpts,
 * stored only after core/blog/sanitize.ts cleaned them. Nothing else.
 */
export const trustedHtml = (sanitized: string): Html => new Html(sanitized)

/**
 * A URL for `href`/`src`: an absolute http(s) URL or a path on this server
 * (`/…`, not `//host`); anything else (`javascript:`, `data:`, a relative
 * oddity) becomes null so the caller leaves the attribute or the element out.
 */
export function safeUrl (value: string | null | undefined): string | null {
  if (!value) return null
  const text = value.trim()
  if (/^\/(?![/\\])/.test(text)) return text
  try {
    const url = new URL(text)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null
  } catch {
    return null
  }
}

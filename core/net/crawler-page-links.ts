// The links of one crawled page, for a crawler's `enqueueLinks()`: the parse
// crawlee's CheerioCrawler did on the API thread before every request handler,
// done here in an extraction worker instead (crawler-factory.ts calls it through
// the pool's generic `call`). Pure: a function of its arguments, cheerio loads in
// the worker only.
import { load } from 'cheerio'

function absoluteUrl (href: string, base: string): string | null {
  try {
    return new URL(href, base).href
  } catch {
    return null
  }
}

/**
 * The `href`s of the elements `selector` matches, resolved against the page's
 * `<base href>` when it has one, else `baseUrl`; unparseable ones left out.
 * The same answer as crawlee's `extractUrlsFromCheerio`, which CheerioCrawler's
 * `enqueueLinks()` used.
 */
export function crawlerPageLinks (html: string, selector: string, baseUrl: string): string[] {
  const $ = load(html)
  const declaredBase = $('base').attr('href')
  const base = (declaredBase && absoluteUrl(declaredBase, baseUrl)) || baseUrl
  const links: string[] = []
  $(selector).each((_index, element) => {
    const href = $(element).attr('href')
    if (!href) return
    const resolved = absoluteUrl(href, base)
    if (resolved) links.push(resolved)
  })
  return links
}

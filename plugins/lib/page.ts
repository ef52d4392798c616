// The readable content and metadata of one HTML page, and its outgoing links.
// Readable text comes from Mozilla Readability (Firefox Reader View) over a linkedom
// DOM; pages where Readability finds no article fall back to the body's visible text.
import { parseHTML } from 'linkedom'
import { Readability, isProbablyReaderable } from '@mozilla/readability'
import { load, type CheerioAPI } from 'cheerio'

export interface PageContent {
  title: string | null
  meta_description: string | null
  /** Absolute URL from <link rel="canonical">. */
  canonical: string | null
  language: string | null
  headings: { h1: string[], h2: string[], h3: string[] }
  /** Readable text: one paragraph per block, paragraphs separated by a blank line. */
  text: string
  excerpt: string | null
  byline: string | null
  word_count: number
}

/** The slice of the DOM this module reads; linkedom implements it. */
interface DomElement {
  nodeType: number
  nodeName: string
  nodeValue: string | null
  textContent: string | null
  childNodes: ArrayLike<DomElement>
  getAttribute (name: string): string | null
  hasAttribute (name: string): boolean
}
interface DomDocument {
  documentElement: DomElement | null
  body: DomElement | null
  title: string
  querySelector (selector: string): DomElement | null
  querySelectorAll (selector: string): ArrayLike<DomElement>
}

const TEXT_NODE = 3
const ELEMENT_NODE = 1

// Left out of the fallback text: not content, or navigation repeated on every page.
const FALLBACK_SKIPPED = new Set([
  'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'MATH', 'IFRAME', 'OBJECT', 'EMBED', 'CANVAS',
  'VIDEO', 'AUDIO', 'SELECT', 'OPTION', 'HEAD', 'NAV', 'BUTTON', 'FORM',
])
const BLOCK_NODES = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BODY', 'CAPTION', 'DD', 'DETAILS', 'DIALOG', 'DIV',
  'DL', 'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6',
  'HEADER', 'HGROUP', 'HR', 'LEGEND', 'LI', 'MAIN', 'OL', 'P', 'PRE', 'SECTION', 'SUMMARY', 'TABLE',
  'TBODY', 'TD', 'TFOOT', 'TH', 'THEAD', 'TR', 'UL',
])

const collapse = (value: string | null | undefined): string => (value ?? '').replace(/\s+/g, ' ').trim()
const orNull = (value: string | null | undefined): string | null => collapse(value) || null

/**
 * Text of an element tree with paragraph structure: blocks become paragraphs separated
 * by a blank line, <br> a line break, inline runs are joined as written.
 */
function blockText (root: DomElement, skipped: ReadonlySet<string> = new Set()): string {
  const out: string[] = []
  const walk = (node: DomElement): void => {
    if (node.nodeType === TEXT_NODE) {
      out.push(node.nodeValue ?? '')
      return
    }
    if (node.nodeType !== ELEMENT_NODE) return
    const name = node.nodeName.toUpperCase()
    if (skipped.has(name)) return
    if (skipped.size > 0 && (node.hasAttribute('hidden') || node.getAttribute('aria-hidden') === 'true' || node.getAttribute('role') === 'navigation')) return
    if (name === 'BR') { out.push('\n'); return }
    const block = BLOCK_NODES.has(name)
    if (block) out.push('\n\n')
    for (const child of Array.from(node.childNodes)) walk(child)
    if (block) out.push('\n\n')
  }
  walk(root)
  return out.join('')
    .split(/\n{2,}/)
    .map(paragraph => paragraph.split('\n').map(collapse).filter(Boolean).join('\n'))
    .filter(Boolean)
    .join('\n\n')
}

/** A linkedom document; fragments and empty input get the html/body shell linkedom needs. */
function parseDocument (html: string): DomDocument {
  const { document } = parseHTML(html) as unknown as { document: DomDocument }
  if (document.documentElement) return document
  return (parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`) as unknown as { document: DomDocument }).document
}

/** Visible text of the body without scripts, styles, navigation and forms. */
function bodyText (document: DomDocument): string {
  return document.body ? blockText(document.body, FALLBACK_SKIPPED) : ''
}

type Article = NonNullable<ReturnType<Readability<DomElement>['parse']>>

/** Readability's article, or null when it finds none. Rewrites `document`. */
function readArticle (document: DomDocument): Article | null {
  try {
    // The serializer hands back the article element itself, so its text is walked with
    // paragraph breaks instead of being serialised to HTML and parsed again.
    return new Readability<DomElement>(document as unknown as Document, { serializer: node => node as unknown as DomElement }).parse()
  } catch {
    // Readability throws on some degenerate documents; the body-text fallback covers them.
    return null
  }
}

/** Word tokens (letters and digits, any script), as counted by word_count. */
export function countWords (text: string): number {
  return text.match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu)?.length ?? 0
}

function absoluteUrl (href: string | null | undefined, base: string): string | null {
  if (!href?.trim()) return null
  try { return new URL(href.trim(), base).href } catch { return null }
}

/** The base URL links resolve against: <base href> (itself relative to the page URL) or the page URL. */
function documentBase (baseHref: string | null | undefined, pageUrl: string): string {
  return absoluteUrl(baseHref, pageUrl) ?? pageUrl
}

function metaContent (document: DomDocument, selectors: string[]): string | null {
  for (const selector of selectors) {
    const value = orNull(document.querySelector(selector)?.getAttribute('content'))
    if (value) return value
  }
  return null
}

function headingTexts (document: DomDocument, tag: string): string[] {
  return Array.from(document.querySelectorAll(tag)).map(element => collapse(element.textContent)).filter(Boolean)
}

/**
 * Title, description, canonical URL, language, headings and readable text of a page.
 * Pure: the page URL only resolves relative URLs.
 */
export function extractPage (html: string, url: string): PageContent {
  const document = parseDocument(html)
  const base = documentBase(document.querySelector('base[href]')?.getAttribute('href'), url)

  // Read the metadata first: Readability rewrites the document it parses.
  const documentTitle = orNull(document.title) ?? metaContent(document, ['meta[property="og:title"]', 'meta[name="twitter:title"]'])
  const metaDescription = metaContent(document, ['meta[name="description"]', 'meta[property="og:description"]', 'meta[name="twitter:description"]'])
  const canonical = absoluteUrl(document.querySelector('link[rel~="canonical"][href]')?.getAttribute('href'), base)
  const language = orNull(document.documentElement?.getAttribute('lang')) ??
    orNull(document.documentElement?.getAttribute('xml:lang')) ??
    metaContent(document, ['meta[http-equiv="content-language" i]', 'meta[property="og:locale"]'])
  const headings = { h1: headingTexts(document, 'h1'), h2: headingTexts(document, 'h2'), h3: headingTexts(document, 'h3') }
  const metaAuthor = metaContent(document, ['meta[name="author"]', 'meta[property="article:author"]'])

  // On pages that are not articles (contact pages, listings) Readability still returns its
  // best-scoring block, often a menu or a sidebar; the whole visible body is more useful there.
  const article = isProbablyReaderable(document as unknown as Document) ? readArticle(document) : null
  const articleText = article?.content ? blockText(article.content) : ''
  // Once Readability has run it has rewritten `document`, so the fallback reads a fresh parse.
  const text = articleText || bodyText(article === null ? document : parseDocument(html))

  return {
    title: orNull(article?.title) ?? documentTitle ?? headings.h1[0] ?? null,
    meta_description: metaDescription,
    canonical,
    language: language ?? orNull(article?.lang),
    headings,
    text,
    excerpt: orNull(article?.excerpt) ?? metaDescription,
    byline: orNull(article?.byline) ?? metaAuthor,
    word_count: countWords(text),
  }
}

/**
 * Absolute http(s) links of the page (<a>/<area> href, resolved against <base href> and
 * baseUrl), fragments stripped, de-duplicated in document order.
 */
export function extractLinks (html: string, baseUrl: string): string[] {
  return extractLinksFromDocument(load(html), baseUrl)
}

/** extractLinks over a page already parsed (pageContacts parses once for all its scanners). */
export function extractLinksFromDocument ($: CheerioAPI, baseUrl: string): string[] {
  const base = documentBase($('base[href]').first().attr('href'), baseUrl)
  const links = new Set<string>()
  $('a[href], area[href]').each((_, element) => {
    const href = $(element).attr('href')
    if (!href || /^\s*(?:javascript|mailto|tel|data|sms|callto):/i.test(href)) return
    let resolved: URL
    try { resolved = new URL(href.trim(), base) } catch { return }
    if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') return
    resolved.hash = ''
    links.add(resolved.href)
  })
  return [...links]
}

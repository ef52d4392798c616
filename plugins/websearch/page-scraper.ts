// The page scraper behind scrape_web_pages and web_search_scrape: fetch each
// URL through the guarded client with bounded concurrency, record HTTP status,
// final URL and content type, and run HTML through the shared extractor.
// A PDF, an image, a 404 or an unreachable host gives a row that says so; one
// bad URL never ends the job.
import { ExtractionError, type HttpClient } from '../../core/tools/contract.ts'

// A type-only import: this file must not load the DOM library at boot.
import type { PageContent as ExtractedPage } from '../lib/page.ts'
/** pageScanner(ctx.extract).page (pooled) in a run; the library's extractPage itself in tests and scripts. */
export type PageExtractor = (html: string, url: string) => ExtractedPage | Promise<ExtractedPage>

export interface ScrapedPage {
  url: string
  status: number | null
  final_url: string | null
  content_type: string | null
  title: string | null
  meta_description: string | null
  canonical: string | null
  language: string | null
  headings: { h1: string[], h2: string[], h3: string[] }
  text: string | null
  text_truncated: boolean
  word_count: number
  error: string | null
}

export interface ScrapeOptions {
  http: HttpClient
  extractPage: PageExtractor
  signal?: AbortSignal
  /** Pages fetched at once (default 4). */
  concurrency?: number
  /** Longest text kept per page, in characters (default 100,000). */
  maxTextChars?: number
  timeoutMs?: number
  maxBytes?: number
}

const PAGE_HEADERS = {
  Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'Accept-Language': 'en-US,en;q=0.9',
}

/** `example.com/x` → `https://example.com/x`; anything that is not http(s) after that → null. */
export function normaliseTargetUrl (input: string): string | null {
  const trimmed = input.trim()
  if (!trimmed) return null
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`
  try {
    const url = new URL(withScheme)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null
  } catch {
    return null
  }
}

const isHtmlType = (type: string) => /^(text\/html|application\/xhtml\+xml)\b/i.test(type)

function emptyPage (url: string, fields: Partial<ScrapedPage>): ScrapedPage {
  return {
    url, status: null, final_url: null, content_type: null, title: null, meta_description: null, canonical: null, language: null,
    headings: { h1: [], h2: [], h3: [] }, text: null, text_truncated: false, word_count: 0, error: null, ...fields,
  }
}

async function scrapePage (url: string, options: ScrapeOptions): Promise<ScrapedPage> {
  const target = normaliseTargetUrl(url)
  if (!target) return emptyPage(url, { error: 'not an http(s) URL' })
  let response: Response
  try {
    response = await options.http.fetch(target, {
      headers: PAGE_HEADERS,
      timeoutMs: options.timeoutMs ?? 20_000,
      maxBytes: options.maxBytes ?? 5 * 1024 * 1024,
      signal: options.signal,
    })
  } catch (error) {
    if (options.signal?.aborted) throw error
    return emptyPage(url, { error: `fetch failed: ${(error as Error).message}` })
  }
  const contentType = response.headers.get('content-type')
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  const base = { status: response.status, final_url: response.url || target, content_type: contentType }

  if (!response.ok) {
    await response.body?.cancel().catch(() => {})
    return emptyPage(url, { ...base, error: `HTTP ${response.status}` })
  }
  // A missing Content-Type is sniffed from the body; a declared non-HTML type is never read.
  if (mediaType && !isHtmlType(mediaType)) {
    await response.body?.cancel().catch(() => {})
    return emptyPage(url, { ...base, error: `not an HTML page (${mediaType})` })
  }
  let html: string
  try {
    html = await response.text()
  } catch (error) {
    if (options.signal?.aborted) throw error
    return emptyPage(url, { ...base, error: `reading the page failed: ${(error as Error).message}` })
  }
  if (!mediaType && !/^\s*(<!doctype html|<html|<head|<body|<)/i.test(html.slice(0, 512))) {
    return emptyPage(url, { ...base, error: 'not an HTML page (no Content-Type, body is not markup)' })
  }
  let page: ExtractedPage
  try {
    page = await options.extractPage(html, base.final_url)
  } catch (error) {
    // Too slow, too deep, too big to parse: this page's error; the other pages go on.
    if (options.signal?.aborted || !(error instanceof ExtractionError)) throw error
    return emptyPage(url, { ...base, error: `the page could not be read: ${error.message}` })
  }
  const maxText = options.maxTextChars ?? 100_000
  const truncated = page.text.length > maxText
  return {
    url,
    ...base,
    title: page.title,
    meta_description: page.meta_description,
    canonical: page.canonical,
    language: page.language,
    headings: page.headings,
    text: truncated ? page.text.slice(0, maxText) : page.text,
    text_truncated: truncated,
    word_count: page.word_count,
    error: null,
  }
}

/**
 * Scrapes urls with at most `concurrency` fetches in flight and hands pages to
 * `emit` in input order (a page waits for the ones before it), so rows keep a
 * stable order while later pages are already loading. Stops scheduling when
 * the job is aborted or `emit` returns false (row cap reached).
 */
export async function scrapePages (urls: string[], options: ScrapeOptions, emit: (page: ScrapedPage, index: number) => Promise<boolean>): Promise<void> {
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 4, 16))
  const done = new Map<number, ScrapedPage>()
  let nextToStart = 0
  let nextToEmit = 0
  let stopped = false
  let emitting: Promise<void> = Promise.resolve()

  const flush = async () => {
    while (!stopped && done.has(nextToEmit)) {
      const page = done.get(nextToEmit)!
      done.delete(nextToEmit)
      const keepGoing = await emit(page, nextToEmit)
      nextToEmit++
      if (!keepGoing) stopped = true
    }
  }

  const worker = async () => {
    while (!stopped && !options.signal?.aborted && nextToStart < urls.length) {
      const index = nextToStart++
      const page = await scrapePage(urls[index]!, options)
      done.set(index, page)
      // Serialise emits so pushes happen one at a time and in order.
      emitting = emitting.then(flush)
      await emitting
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, urls.length) }, worker))
  await emitting
  options.signal?.throwIfAborted()
}

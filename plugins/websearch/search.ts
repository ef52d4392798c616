// One search across engines: choose the backends (auto order or the caller's
// choice), fetch and parse page after page up to the wanted count, de-duplicate
// by normalised URL, and record every engine's answer in EngineHealth.
import { BlockedTargetError, MissingCredentialError, ToolBlockedError, UpstreamError, type HttpClient, type UpstreamConfig } from '../../core/tools/contract.ts'
import { AUTO_ORDER, backendsFor, isConfigured, missingCredentials, type EngineChoice, type EngineId } from './engine-catalog.ts'
import type { EngineHealth } from './engine-health.ts'
import { ENGINES, baseUrlFor, type EngineDefinition, type PageCursor, type SearchParams } from './engines.ts'
import type { SerpPage, SerpResult } from './extract/serp-page.ts'

export interface SearchDeps {
  http: HttpClient
  upstream: Pick<UpstreamConfig, 'urls' | 'credential' | 'credentialNames'>
  health: EngineHealth
  stage: (text: string) => void
  signal?: AbortSignal
  /** Parses an engine's answer (in the kernel's worker pool); default: the engine's parser on this thread. */
  parse?: (engine: EngineId, body: string, finalUrl: string) => Promise<SerpPage>
}

interface EngineAttempt { engine: EngineId, outcome: 'ok' | 'blocked' | 'error' | 'skipped', reason: string }

export interface SearchOutcome {
  engine: EngineId
  results: Array<SerpResult & { engine: EngineId }>
  related_searches: string[]
  answer_box: Record<string, unknown> | null
  pages: number
  attempts: EngineAttempt[]
  /** Set when a later page failed and the results stop short. */
  stopped_early: string | null
}

type PageOutcome = { kind: 'page', page: SerpPage } | { kind: 'blocked', reason: string } | { kind: 'error', reason: string }

/**
 * The key two URLs share when they are the same page for a reader: scheme,
 * `www.`, trailing slash, fragment, tracking parameters and parameter order
 * do not matter.
 */
function normalisedUrlKey (url: string): string {
  try {
    const u = new URL(url)
    const params = [...u.searchParams.entries()]
      .filter(([key]) => !/^(utm_[a-z]+|gclid|fbclid|msclkid|ref|ref_src)$/i.test(key))
      .sort(([a], [b]) => a.localeCompare(b))
    const query = params.length ? `?${new URLSearchParams(params).toString()}` : ''
    const path = u.pathname.replace(/\/+$/, '')
    return `${u.hostname.toLowerCase().replace(/^www\./, '')}${u.port ? `:${u.port}` : ''}${path}${query}`
  } catch {
    return url
  }
}

/**
 * What went wrong with a request that got no answer, as a short category.
 * The client's own message names the full request URL (SerpApi's `api_key=`,
 * Google CSE's `key=`), and these reasons go to the job's stage and error, the
 * summary and the engine health any key can read: they never quote it.
 */
export function transportFailure (error: unknown): string {
  if (error instanceof BlockedTargetError) return 'the address is not allowed (private or local network)'
  const message = error instanceof Error ? error.message : String(error)
  const cause = (error as { cause?: { code?: string, message?: string } } | null)?.cause
  const text = `${message} ${cause?.code ?? ''} ${cause?.message ?? ''}`
  if (/timed out|timeout|ETIMEDOUT|UND_ERR_(CONNECT|HEADERS|BODY)_TIMEOUT/i.test(text)) return 'timed out'
  if (/ECONNRESET|UND_ERR_SOCKET|socket hang up|other side closed|EPIPE|connection reset/i.test(text)) return 'connection reset'
  if (/ECONNREFUSED/.test(text)) return 'connection refused'
  if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME|getaddrinfo|host name not found/i.test(text)) return 'host not found'
  // ctx.http's own phrase for every failed connection (core/net/public-errors.ts): refused, reset and unreachable read alike.
  if (/could not connect/i.test(text)) return 'could not connect'
  if (/EHOSTUNREACH|ENETUNREACH/.test(text)) return 'host unreachable'
  if (/CERT|certificate|SSL|TLS/i.test(text)) return 'TLS handshake failed'
  if (/larger than/i.test(text)) return 'answer too large'
  if (/redirect/i.test(text)) return 'unexpected redirect'
  return 'network error'
}

async function fetchPage (deps: SearchDeps, engine: EngineDefinition, cursor: PageCursor, params: SearchParams): Promise<PageOutcome | null> {
  const plan = engine.request(baseUrlFor(engine, deps.upstream.urls), params, cursor, deps.upstream.credential)
  if (!plan) return null
  let response: { status: number, url: string, body: string }
  try {
    response = await deps.http.text(plan.url, { method: plan.method, headers: plan.headers, body: plan.body, timeoutMs: 20_000, signal: deps.signal })
  } catch (error) {
    if (deps.signal?.aborted) throw error
    return { kind: 'error', reason: `request failed: ${transportFailure(error)}` }
  }
  let page: SerpPage | null = null
  try {
    page = deps.parse ? await deps.parse(engine.id, response.body, response.url || plan.url) : engine.parse(response.body, response.url || plan.url)
  } catch (error) {
    if (deps.signal?.aborted) throw error
    // The parser's message quotes the body, which an upstream may fill with the request (key included).
  }
  // 403 and 429 are refusals whatever the body says; the body's own reason (captcha, quota) is kept when there is one.
  if (response.status === 403 || response.status === 429) {
    return { kind: 'blocked', reason: `HTTP ${response.status}${page?.blocked ? `: ${page.blocked}` : page?.error ? `: ${page.error}` : ''}` }
  }
  if (page?.blocked) return { kind: 'blocked', reason: page.blocked }
  if (response.status === 401) return { kind: 'error', reason: `HTTP 401: the API key was rejected${page?.error ? ` (${page.error})` : ''}` }
  if (response.status >= 400) return { kind: 'error', reason: `HTTP ${response.status}${page?.error ? `: ${page.error}` : ''}` }
  if (!page) return { kind: 'error', reason: `unreadable answer (HTTP ${response.status}, not ${engine.format === 'json' ? 'JSON' : 'a results page'})` }
  if (page.error) return { kind: 'error', reason: page.error }
  // DuckDuckGo signals rate limiting with 202 and a page without results, even when the anomaly markup changes.
  if (response.status === 202 && !page.results.length && engine.id.startsWith('duckduckgo')) {
    return { kind: 'blocked', reason: 'HTTP 202 without results (DuckDuckGo rate limit)' }
  }
  return { kind: 'page', page }
}

interface EngineRun {
  results: Array<SerpResult & { engine: EngineId }>
  related: string[]
  answerBox: Record<string, unknown> | null
  pages: number
  /** The first page failed: nothing from this engine. */
  failure: { kind: 'blocked' | 'error', reason: string } | null
  /** A later page failed: the results stop short. */
  laterFailure: { kind: 'blocked' | 'error', reason: string } | null
}

async function runEngine (deps: SearchDeps, engine: EngineDefinition, params: SearchParams): Promise<EngineRun> {
  const run: EngineRun = { results: [], related: [], answerBox: null, pages: 0, failure: null, laterFailure: null }
  const seen = new Set<string>()
  let cursor: PageCursor = { index: 0, received: 0, previous: null }
  while (run.results.length < params.wanted && cursor.index < engine.maxPages) {
    if (cursor.index > 0) deps.stage(`${engine.id}: fetching results page ${cursor.index + 1}`)
    const outcome = await fetchPage(deps, engine, cursor, params)
    if (!outcome) break
    if (outcome.kind !== 'page') {
      if (cursor.index === 0) run.failure = outcome
      else run.laterFailure = { kind: outcome.kind, reason: `page ${cursor.index + 1}: ${outcome.reason}` }
      break
    }
    const page = outcome.page
    run.pages++
    for (const result of page.results) {
      const key = normalisedUrlKey(result.url)
      if (seen.has(key)) continue
      seen.add(key)
      run.results.push({ ...result, position: run.results.length + 1, engine: engine.id })
    }
    for (const related of page.related_searches) if (!run.related.includes(related)) run.related.push(related)
    run.answerBox ??= page.answer_box
    if (!page.results.length) break
    cursor = { index: cursor.index + 1, received: cursor.received + page.results.length, previous: page }
  }
  run.results = run.results.slice(0, params.wanted)
  return run
}

/** The backends to try, in order, for the caller's `engine`. */
const candidates = (choice: EngineChoice): EngineId[] => (choice === 'auto' ? [...AUTO_ORDER] : backendsFor(choice))

export async function searchWeb (deps: SearchDeps, params: SearchParams, choice: EngineChoice): Promise<SearchOutcome> {
  const attempts: EngineAttempt[] = []
  const credential = deps.upstream.credential
  const list = candidates(choice)
  // What other processes saw (REDIS_URL): a block one of them met cools the engine down here too.
  await deps.health.refresh()

  for (const id of list) {
    if (!isConfigured(id, credential)) {
      const missing = missingCredentials(id, credential, deps.upstream.credentialNames)
      // Asked for by name: the caller must learn which variable to set. Under auto, just skip it.
      if (choice !== 'auto') throw new MissingCredentialError(missing.join(' and '), `The ${id} search engine`)
      attempts.push({ engine: id, outcome: 'skipped', reason: `${missing.join(' and ')} not set` })
      continue
    }
    const cooling = deps.health.cooldownRemainingSeconds(id)
    if (cooling > 0) {
      attempts.push({ engine: id, outcome: 'skipped', reason: `cooling down for ${cooling} s after: ${deps.health.observation(id)?.reason}` })
      continue
    }
    deps.signal?.throwIfAborted()
    deps.stage(`searching ${id}`)
    const run = await runEngine(deps, ENGINES[id], params)
    if (run.failure) {
      if (run.failure.kind === 'blocked') await deps.health.recordBlocked(id, run.failure.reason)
      else await deps.health.recordError(id, run.failure.reason)
      attempts.push({ engine: id, outcome: run.failure.kind, reason: run.failure.reason })
      deps.stage(`${id} ${run.failure.kind === 'blocked' ? 'refused' : 'failed'} (${run.failure.reason})${list.indexOf(id) < list.length - 1 ? ', trying the next engine' : ''}`)
      continue
    }
    // A later page refused: the engine is blocking now, whatever page 1 said, so it cools down.
    if (run.laterFailure?.kind === 'blocked') await deps.health.recordBlocked(id, run.laterFailure.reason)
    else await deps.health.recordOk(id, `${run.results.length} results`)
    attempts.push({ engine: id, outcome: 'ok', reason: `${run.results.length} results from ${run.pages} page(s)` })
    const stoppedEarly = run.laterFailure ? `${id} ${run.laterFailure.reason}` : null
    return { engine: id, results: run.results, related_searches: run.related, answer_box: run.answerBox, pages: run.pages, attempts, stopped_early: stoppedEarly }
  }

  const summary = attempts.map(a => `${a.engine}: ${a.reason}`).join('; ')
  const refusals = attempts.filter(a => a.outcome === 'blocked' || (a.outcome === 'skipped' && a.reason.startsWith('cooling')))
  // Only failures (5xx, timeouts), no refusal: the upstreams are broken, not refusing.
  if (!refusals.length) throw new UpstreamError(`Every search engine failed: ${summary}`)
  throw new ToolBlockedError(`Every search engine refused or is cooling down after a block: ${summary}`)
}

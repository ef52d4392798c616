// YouTube's InnerTube API through youtubei.js, with every request routed
// through the job's guarded client (ctx.http): network policy, proxy, user
// agent, the job's abort signal and MAX_RESPONSE_BYTES all apply, and
// youtubei.js runs unmodified (its `fetch` option is the only seam).
//
// youtubei.js is used for what it does well and what changes under our feet:
// the InnerTube client context (client name and version, visitor data,
// headers, the /youtubei/v1/<endpoint> paths). Its answers are read as text
// and parsed by the plugin's own pure parsers in the kernel's worker pool, so
// no large JSON tree is built on the API thread and the parsers are tested on
// real captures.
//
// One session per job: youtubei.js fixes `fetch` when the session is created,
// and that fetch must be the job's (its signal, its guard). The session is
// built locally (generate_session_locally; no /sw.js_data, no home page, no
// /config request, no player script: retrieve_player false), so creating it
// costs no request. No cache is passed, so nothing is ever written to disk.
import { Innertube, Utils } from 'youtubei.js'
import { ToolBlockedError, UpstreamError, type HttpClient } from '../../../core/tools/contract.ts'

/** Hosts youtubei.js calls for the WEB client; requests to them go to the configured base instead. */
const YOUTUBE_ORIGINS = new Set(['https://www.youtube.com', 'https://m.youtube.com', 'https://youtube.com'])
export const DEFAULT_YOUTUBE_BASE = 'https://www.youtube.com'

export interface InnertubeOptions {
  /** The YouTube origin (tools.config.json upstream; a local stand-in in tests). */
  base: string
  timeoutMs: number
  /** InnerTube `hl` and `gl`: the language of texts ("3 days ago") and the region. */
  language: string
  region: string
}

/**
 * A fetch-compatible function over the guarded client, for youtubei.js's
 * `fetch` option: requests to YouTube's origin are sent to `base`; a 429 ends
 * the job blocked (YouTube's rate limit is a refusal, retrying makes it worse).
 */
export function guardedFetch (http: HttpClient, options: Pick<InnertubeOptions, 'base' | 'timeoutMs'>): typeof fetch {
  const base = options.base.replace(/\/+$/, '')
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : null
    const asked = new URL(request ? request.url : String(input))
    const target = YOUTUBE_ORIGINS.has(asked.origin) ? `${base}${asked.pathname}${asked.search}` : asked.href
    const headers = new Headers(init?.headers ?? request?.headers)
    let body = init?.body ?? undefined
    if (body === undefined && request?.body) body = await request.text()
    const response = await http.fetch(target, {
      method: init?.method ?? request?.method ?? 'GET',
      headers,
      body: body as string | undefined,
      timeoutMs: options.timeoutMs,
      ...(init?.signal ? { signal: init.signal } : {}),
    })
    if (response.status === 429) {
      await response.body?.cancel().catch(() => {})
      throw new ToolBlockedError('YouTube answered HTTP 429 (too many requests)')
    }
    return response
  }
}

export interface InnertubeSession {
  /** POSTs an InnerTube endpoint (`/player`, `/next`, `/browse`, `/navigation/resolve_url`) and returns the answer's text. */
  post (endpoint: string, payload: Record<string, unknown>): Promise<string>
}

/** A youtubei.js session for one job, its requests through `http`. */
export async function openInnertube (http: HttpClient, options: InnertubeOptions): Promise<InnertubeSession> {
  const innertube = await Innertube.create({
    fetch: guardedFetch(http, options),
    generate_session_locally: true,
    retrieve_player: false,
    retrieve_innertube_config: false,
    enable_session_cache: false,
    lang: options.language,
    location: options.region,
  })
  return {
    async post (endpoint, payload) {
      let response: Response
      try {
        response = await innertube.session.http.fetch(endpoint, {
          method: 'POST',
          body: JSON.stringify(payload),
          headers: { 'Content-Type': 'application/json' },
        })
      } catch (error) {
        // youtubei.js's HTTP client throws its own error on a non-2xx answer, naming the status.
        if (error instanceof Utils.InnertubeError) {
          const status = Number(/status code (\d{3})/.exec(error.message)?.[1])
          throw new UpstreamError(`YouTube answered HTTP ${Number.isFinite(status) ? status : 'error'} on ${endpoint}`, Number.isFinite(status) ? status : undefined)
        }
        throw error
      }
      return response.text()
    },
  }
}

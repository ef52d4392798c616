// Asks an OpenAI-compatible chat-completions endpoint for one article as JSON.
// `parseArticle` is pure (tested on captured answers); `ArticleWriter` only
// fetches. Every way the model can fail ends as ModelUnavailable, which the
// service turns into a refunded 503.
import { readCappedBody } from './capped-body.ts'

export interface GeneratedArticle {
  title: string
  excerpt: string
  content: string
  meta_description: string
  seo_keywords: string[] | string
}

export interface LlmSettings { baseUrl: string | null, apiKey: string | null, model: string | null }

/** The model is not configured, did not answer in time, or answered something unusable. */
export class ModelUnavailable extends Error {
  constructor (message: string, readonly reason: 'unconfigured' | 'timeout' | 'http' | 'network' | 'malformed') {
    super(message)
    this.name = 'ModelUnavailable'
  }
}

const DEFAULT_LLM_TIMEOUT_MS = 60_000
/** A chat-completions answer is small; anything bigger is not an article we want. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024

const SYSTEM_PROMPT = [
  'You write blog articles for a B2B data-extraction and lead-generation service.',
  'Answer with ONE JSON object and nothing else (no prose, no code fences), with exactly these keys:',
  '"title" (string, at most 120 characters),',
  '"excerpt" (string, one or two plain sentences),',
  '"content" (string, the article body as HTML using <h2>, <h3>, <p>, <ul>/<ol>/<li>, <strong>, <em>, <a>, <blockquote>, <table>; no <h1>, no <script>, no <style>),',
  '"meta_description" (string, at most 160 characters),',
  '"seo_keywords" (array of 3 to 8 short strings).',
].join(' ')

function asNonEmptyString (value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null
}

/** Finds the article object in the model's text: bare JSON, fenced JSON, or JSON inside prose. */
function extractJsonObject (text: string): unknown {
  const trimmed = text.trim()
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(trimmed)
  const candidates = [trimmed]
  if (fenced?.[1]) candidates.push(fenced[1].trim())
  const first = trimmed.indexOf('{')
  const last = trimmed.lastIndexOf('}')
  if (first >= 0 && last > first) candidates.push(trimmed.slice(first, last + 1))
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate)
      if (value && typeof value === 'object' && !Array.isArray(value)) return value
    } catch { /* try the next reading */ }
  }
  return null
}

/**
 * The article in a chat-completions response body (already JSON-parsed), or
 * ModelUnavailable('malformed') when there is none: no choices, no content,
 * content that is not a JSON object, or one without a title and content.
 */
function parseArticle (body: unknown): GeneratedArticle {
  const malformed = (why: string) => new ModelUnavailable(`The model's answer could not be read as an article (${why}).`, 'malformed')
  const choices = (body as { choices?: unknown } | null)?.choices
  if (!Array.isArray(choices) || choices.length === 0) throw malformed('no choices')
  const message = (choices[0] as { message?: { content?: unknown } } | null)?.message
  const text = asNonEmptyString(message?.content)
  if (!text) throw malformed('empty message')
  const obj = extractJsonObject(text) as Record<string, unknown> | null
  if (!obj) throw malformed('not a JSON object')
  const title = asNonEmptyString(obj.title)
  const content = asNonEmptyString(obj.content)
  if (!title || !content) throw malformed('title or content missing')
  const keywords = obj.seo_keywords
  return {
    title,
    content,
    excerpt: typeof obj.excerpt === 'string' ? obj.excerpt : '',
    meta_description: typeof obj.meta_description === 'string' ? obj.meta_description : '',
    seo_keywords: typeof keywords === 'string' ? keywords : Array.isArray(keywords) ? keywords.filter((k): k is string => typeof k === 'string') : [],
  }
}

export class ArticleWriter {
  constructor (private readonly llm: LlmSettings, private readonly timeoutMs: number = DEFAULT_LLM_TIMEOUT_MS) {}

  get configured (): boolean {
    return Boolean(this.llm.baseUrl && this.llm.model)
  }

  async write (topic: string, signal?: AbortSignal): Promise<GeneratedArticle> {
    if (!this.configured) throw new ModelUnavailable('No article model is configured on this server (LLM_BASE_URL and LLM_MODEL).', 'unconfigured')
    const url = this.llm.baseUrl!.replace(/\/+$/, '') + '/chat/completions'
    const timeout = AbortSignal.timeout(this.timeoutMs)
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
    if (this.llm.apiKey) headers.authorization = `Bearer ${this.llm.apiKey}`
    let res: Response
    let text: string
    try {
      res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          model: this.llm.model,
          temperature: 0.7,
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: `Write the article about this topic: ${topic}` },
          ],
        }),
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
        redirect: 'error',
      })
      text = (await readCappedBody(res, MAX_ANSWER_BYTES, () => new ModelUnavailable('The model answered with more than 2 MB.', 'malformed'))).toString('utf8')
    } catch (err) {
      if (err instanceof ModelUnavailable) throw err
      if (timeout.aborted) throw new ModelUnavailable(`The article model did not answer within ${Math.round(this.timeoutMs / 1000)} s.`, 'timeout')
      throw new ModelUnavailable('The article model could not be reached.', 'network')
    }
    if (res.status < 200 || res.status >= 300) throw new ModelUnavailable(`The article model answered HTTP ${res.status}.`, 'http')
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new ModelUnavailable("The model's answer could not be read as an article (not JSON).", 'malformed')
    }
    return parseArticle(body)
  }
}

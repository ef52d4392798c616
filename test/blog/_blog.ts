// Helpers shared by the blog tests (not a test file itself): requests with each
// kind of key, and a local OpenAI-compatible chat-completions server.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { ADMIN_KEY, BLOG_KEY, PUBLIC_TOKEN, signup } from '../helpers/build.ts'

interface Teardown { teardown (fn: () => unknown): void }

export type KeyKind = 'admin' | 'blog' | 'personal' | 'scoped' | 'guest' | 'bad' | 'none'
export const KEY_KINDS: KeyKind[] = ['admin', 'blog', 'personal', 'scoped', 'guest', 'bad', 'none']

export interface Keys { headers (kind: KeyKind): Record<string, string>, personal: string, scoped: string }

/** One account with a personal key and a scoped token; headers for every kind of caller. */
export async function keysFor (app: FastifyInstance): Promise<Keys> {
  const user = await signup(app)
  const res = await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: { 'x-api-key': user.apiKey }, payload: { name: 'blog-ci', tools: [app.services.catalog.keys()[0]] } })
  if (res.statusCode !== 201) throw new Error(`mint failed: ${res.statusCode} ${res.body}`)
  const scoped = res.json().token as string
  const table: Record<KeyKind, Record<string, string>> = {
    admin: { 'x-api-key': ADMIN_KEY },
    blog: { 'x-blog-key': BLOG_KEY },
    personal: { 'x-api-key': user.apiKey },
    scoped: { 'x-api-key': scoped },
    guest: { 'x-api-key': PUBLIC_TOKEN },
    bad: { 'x-api-key': 'sk-not-a-real-key' },
    none: {},
  }
  return { headers: kind => table[kind], personal: user.apiKey, scoped }
}

export const admin = { 'x-api-key': ADMIN_KEY }

export async function publish (app: FastifyInstance, body: Record<string, unknown>, headers: Record<string, string> = admin) {
  return app.inject({ method: 'POST', url: '/api/blog/post', headers, payload: body })
}

/** Publishes and returns the stored post, failing loudly on anything but 201. */
export async function published (app: FastifyInstance, body: Record<string, unknown>) {
  const res = await publish(app, body)
  if (res.statusCode !== 201) throw new Error(`publish failed: ${res.statusCode} ${res.body}`)
  return res.json().post as Record<string, unknown> & { id: string, slug: string }
}

export async function callsToday (app: FastifyInstance, key: string): Promise<number> {
  const res = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': key } })
  return res.json().usage.calls_today as number
}

export interface LlmRequest { url: string, headers: IncomingMessage['headers'], body: { model?: string, prompt?: string, messages?: Array<{ role: string, content: string }> } }
export type LlmReply = (req: LlmRequest, res: ServerResponse) => void

/** A chat-completions answer whose message content is `content`. */
export function chatAnswer (content: string) {
  return { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }
}

export const ARTICLE = {
  title: 'Finding B2B Leads with Maps Data',
  excerpt: 'How <b>local listings</b> become a lead list.',
  content: '<h2>Why maps</h2><p>Listings carry phones.</p><script>alert(1)</script><ul><li>one</li></ul>',
  meta_description: 'Turn map listings into qualified B2B leads.',
  seo_keywords: ['lead generation', 'maps', 'b2b'],
}

/** A 1×1 PNG: what the fake image model draws. */
export const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

/**
 * An OpenAI-compatible server on 127.0.0.1, port 0; `reply` decides each chat
 * answer, `imageReply` each POST /v1/images/generations (404 without one), and
 * GET /files/<name> serves `files` (image answers given as a url).
 * `requests` records the model calls (chat and images), `imageRequests` the image calls only.
 */
export async function llmServer (t: Teardown, reply: LlmReply, imageReply?: LlmReply, files: Record<string, Buffer> = {}): Promise<{ baseUrl: string, origin: string, requests: LlmRequest[], imageRequests: LlmRequest[] }> {
  const requests: LlmRequest[] = []
  const imageRequests: LlmRequest[] = []
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c: Buffer) => { raw += c.toString() })
    req.on('end', () => {
      if (req.method === 'GET' && req.url?.startsWith('/files/')) {
        const file = files[req.url.slice('/files/'.length)]
        if (file) res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file)
        else res.writeHead(404).end()
        return
      }
      const entry: LlmRequest = { url: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : {} }
      if (req.method === 'POST' && req.url === '/v1/images/generations' && imageReply) {
        imageRequests.push(entry)
        imageReply(entry, res)
        return
      }
      requests.push(entry)
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end('{}')
        return
      }
      reply(entry, res)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => { server.closeAllConnections(); server.close(() => resolve()) }))
  const { port } = server.address() as AddressInfo
  return { baseUrl: `http://127.0.0.1:${port}/v1`, origin: `http://127.0.0.1:${port}`, requests, imageRequests }
}

export const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

export const llmEnv = (baseUrl: string, extra: Record<string, string> = {}) => ({ LLM_BASE_URL: baseUrl, LLM_API_KEY: 'llm-test-key', LLM_MODEL: 'test-model', ...extra })

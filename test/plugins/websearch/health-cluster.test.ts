// Engine health and cooldowns across processes (REDIS_URL): what one API or
// worker process observed (an engine refused) is in the other's search status
// record, and the other's searches skip the engine while it cools down,
// without a request. Two apps sharing one Redis stand for the two processes.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { build, signup, tempDir } from '../../helpers/build.ts'
import { startJob, waitForEnd } from '../../helpers/jobs.ts'
import { startRedis } from '../../helpers/redis-server.ts'
import { send, startServer } from './fake-context.ts'

const ENGINE_UPSTREAMS = ['duckduckgo_html', 'duckduckgo_lite', 'brave', 'mojeek', 'bing', 'yahoo', 'google', 'serper', 'serpapi', 'google_cse']

/** tools.config.json's websearch entry alone, every engine at `base`. */
function toolsConfig (t: Parameters<typeof tempDir>[0], base: string): string {
  const file = JSON.parse(readFileSync(resolve('tools.config.json'), 'utf8'))
  const entry = structuredClone(file.tools.find((e: { key: string }) => e.key === 'websearch'))
  entry.upstream = Object.fromEntries(ENGINE_UPSTREAMS.map(name => [name, base]))
  const path = join(tempDir(t, 'ws-config-'), 'tools.config.json')
  writeFileSync(path, JSON.stringify({ tools: [entry], retired: [] }))
  return path
}

async function search (app: FastifyInstance, apiKey: string, query: string) {
  const res = await startJob(app, apiKey, { query }, 'websearch')
  if (res.statusCode !== 202) throw new Error(`tool-run answered ${res.statusCode}: ${res.body}`)
  return waitForEnd(app, apiKey, res.json().job_id, 30_000)
}

const statusOf = async (app: FastifyInstance, apiKey: string) =>
  (await app.inject({ url: '/api/search/status', headers: { 'x-api-key': apiKey } })).json()

t.test('engines blocked on A are blocked, and cooling down, on B', async t => {
  const redis = await startRedis(t)
  const refusing = await startServer(t, (_req, res) => send(res, 429, 'Too Many Requests', 'text/plain'))
  const env = { TOOLS_CONFIG: toolsConfig(t, refusing.base), ALLOW_PRIVATE_TARGETS: '1', REDIS_URL: redis.url }
  const a = await build(t, { env })
  const b = await build(t, { env })
  const [userA, userB] = [await signup(a), await signup(b)]

  t.match(await statusOf(b, userB.apiKey), { engine_health_observed: false, engines_blocked: [] }, 'B has seen nothing yet')
  t.match(await search(a, userA.apiKey, 'anything'), { status: 'error', blocked: true })
  const asked = refusing.requests.length
  t.equal(asked, 7, 'A asked each scraped engine once')

  const onB = await statusOf(b, userB.apiKey)
  t.equal(onB.engine_health_observed, true, 'B sees what A observed')
  t.same(onB.engines_blocked, ['duckduckgo', 'bing', 'brave', 'mojeek', 'yahoo', 'google'])
  t.match(onB, { google_cooldown_active: true, last_google_block_reason: 'HTTP 429' })
  t.ok(onB.engine_health.google.cooldown_remaining_s > 1790, 'with the cooldown A started')

  const second = await search(b, userB.apiKey, 'anything else')
  t.match(second, { status: 'error', blocked: true, refunded: true })
  t.match(second.error, /cooling down/)
  t.equal(refusing.requests.length, asked, 'B sent no request during the cooldown A started')
})

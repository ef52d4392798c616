// EngineHealth with an injected clock: transitions, cooldowns, the auto order
// and every field of the Search status record.
import t from 'tap'
import { EngineHealth, createEngineHealth } from '../../../plugins/websearch/engine-health.ts'
import { AUTO_ORDER } from '../../../plugins/websearch/engine-catalog.ts'

function movableClock (start = '2025-06-01T10:00:00Z') {
  let now = new Date(start).getTime()
  const clock = () => new Date(now)
  return Object.assign(clock, { advance: (seconds: number) => { now += seconds * 1000 } })
}

const noKeys = (_name: string) => undefined
const keys = (values: Record<string, string>) => (name: string) => values[name]

const STATUS_FIELDS = [
  'providers', 'proxy_configured', 'google_ready', 'google_cooldown_active', 'last_google_block_reason', 'engines',
  'engine_health_observed', 'engines_working', 'engines_blocked', 'engines_unconfigured', 'engine_health',
  'recommended_engine', 'note',
]

t.test('unobserved → ok → blocked with cooldown → recovered', async t => {
  const clock = movableClock()
  const health = createEngineHealth({ clock, cooldownSeconds: 600, googleCooldownSeconds: 1800 })

  let status = health.statusRecord({ credential: noKeys, proxyConfigured: false })
  t.equal(status.engine_health_observed, false, 'nothing observed at start')
  t.same(status.engines_working, [])
  t.match(status.note, /not measured yet/)
  t.equal(status.recommended_engine, 'duckduckgo', 'without keys auto starts with DuckDuckGo')

  health.recordOk('bing', '10 results')
  clock.advance(5)
  status = health.statusRecord({ credential: noKeys, proxyConfigured: false })
  t.equal(status.engine_health_observed, true)
  t.same(status.engines_working, ['bing'])
  t.same(status.engine_health.bing, { ok: true, kind: 'ok', reason: '10 results', age_s: 5 })

  health.recordBlocked('bing', 'HTTP 429')
  t.equal(health.inCooldown('bing'), true)
  clock.advance(100)
  status = health.statusRecord({ credential: noKeys, proxyConfigured: false })
  t.same(status.engines_working, [])
  t.same(status.engines_blocked, ['bing'])
  t.same(status.engine_health.bing, { ok: false, kind: 'blocked', reason: 'HTTP 429', age_s: 100, cooldown_remaining_s: 500 })
  t.notOk(health.autoCandidates(noKeys).includes('bing'), 'auto skips bing while it cools down')
  t.match(status.note, /bing refused \(HTTP 429\); skipped for 500 s more/)

  clock.advance(500)
  t.equal(health.inCooldown('bing'), false, 'cooldown over')
  t.ok(health.autoCandidates(noKeys).includes('bing'), 'auto tries bing again')
  status = health.statusRecord({ credential: noKeys, proxyConfigured: false })
  t.same(status.engines_blocked, ['bing'], 'still listed as blocked until it answers again')
  t.match(status.note, /cooldown is over/)

  health.recordOk('bing', '10 results')
  status = health.statusRecord({ credential: noKeys, proxyConfigured: false })
  t.same(status.engines_working, ['bing'], 'recovered')
  t.same(status.engines_blocked, [])
})

t.test('google cooldown is reported and lasts longer; its last block reason outlives recovery', async t => {
  const clock = movableClock()
  const health = new EngineHealth({ clock, cooldownSeconds: 60, googleCooldownSeconds: 1800 })
  health.recordBlocked('google', 'Google unusual-traffic captcha (/sorry/)')
  let status = health.statusRecord({ credential: noKeys, proxyConfigured: false })
  t.equal(status.google_cooldown_active, true)
  t.equal(status.google_ready, false)
  t.equal(status.last_google_block_reason, 'Google unusual-traffic captcha (/sorry/)')
  t.match(status.note, /PROXY_URL/)

  clock.advance(61)
  t.equal(health.inCooldown('google'), true, 'the shorter default cooldown does not apply to google')
  clock.advance(1800)
  status = health.statusRecord({ credential: noKeys, proxyConfigured: true })
  t.equal(status.google_cooldown_active, false)
  t.equal(status.google_ready, true)
  health.recordOk('google')
  status = health.statusRecord({ credential: noKeys, proxyConfigured: true })
  t.equal(status.last_google_block_reason, 'Google unusual-traffic captcha (/sorry/)', 'the last block reason stays for operators')
  t.equal(status.proxy_configured, true)
})

t.test('errors are recorded without a cooldown', async t => {
  const health = createEngineHealth({ clock: movableClock() })
  health.recordError('mojeek', 'HTTP 502')
  t.equal(health.inCooldown('mojeek'), false)
  const status = health.statusRecord({ credential: noKeys, proxyConfigured: false })
  t.match(status.engine_health.mojeek, { ok: false, kind: 'error', reason: 'HTTP 502' })
  t.same(status.engines_blocked, [])
})

t.test('auto order: providers with keys first, then the scraped engines; blocked ones are passed over', async t => {
  const health = createEngineHealth({ clock: movableClock() })
  t.same(health.autoCandidates(noKeys), ['duckduckgo_html', 'duckduckgo_lite', 'brave', 'mojeek', 'bing', 'yahoo', 'google'])
  t.same(health.autoCandidates(keys({ serpapi: 'k' })).slice(0, 2), ['serpapi', 'duckduckgo_html'])
  t.same(health.autoCandidates(keys({ serper: 'a', serpapi: 'b', google_cse: 'c', google_cse_cx: 'd' })), AUTO_ORDER)
  t.notOk(health.autoCandidates(keys({ google_cse: 'c' })).includes('google_cse'), 'google_cse needs both the key and the engine id')

  health.recordBlocked('duckduckgo_html', 'anomaly page')
  t.equal(health.pickAuto(noKeys), 'duckduckgo_lite')
  health.recordBlocked('duckduckgo_lite', 'HTTP 429')
  t.equal(health.pickAuto(noKeys), 'brave')
  t.equal(health.statusRecord({ credential: noKeys, proxyConfigured: false }).recommended_engine, 'brave')
  for (const engine of ['brave', 'mojeek', 'bing', 'yahoo', 'google'] as const) health.recordBlocked(engine, 'HTTP 403')
  t.equal(health.pickAuto(noKeys), null)
  const status = health.statusRecord({ credential: noKeys, proxyConfigured: false })
  t.equal(status.recommended_engine, 'auto')
  t.match(status.note, /Every configured engine is cooling down/)
  t.equal(health.pickAuto(keys({ serper: 'k' })), 'serper', 'a provider key gets searches going again')
})

t.test('the status record has every field of the spec, with the spec\'s types', async t => {
  const clock = movableClock()
  const health = createEngineHealth({ clock })
  health.recordOk('duckduckgo_html', '10 results')
  const status = health.statusRecord({ credential: keys({ serper: 'k' }), credentialNames: { serpapi: 'SERPAPI_API_KEY' }, proxyConfigured: false })
  t.same(Object.keys(status).sort(), [...STATUS_FIELDS, 'proxy_health'].sort(), 'the spec fields, and proxy_health beyond the spec (the kernel\'s outbound proxies)')
  t.same(status.proxy_health, [], 'no proxies: an empty list')
  t.same(status.providers, { serper: true, serpapi: false, google_cse: false })
  t.type(status.proxy_configured, 'boolean')
  t.type(status.google_ready, 'boolean')
  t.type(status.google_cooldown_active, 'boolean')
  t.equal(status.last_google_block_reason, '')
  t.ok(['auto', 'google', 'bing', 'duckduckgo', 'brave', 'mojeek', 'yahoo'].every(e => status.engines.includes(e)), 'engines lists the spec names')
  t.same(status.engines_working, ['duckduckgo'])
  t.same(status.engines_unconfigured, ['serpapi', 'google_cse'])
  t.same(status.engine_health.serpapi, { ok: false, kind: 'unconfigured', reason: 'SERPAPI_API_KEY not set', age_s: 0 })
  t.match(status.engine_health.google_cse, { kind: 'unconfigured', reason: 'GOOGLE_CSE_API_KEY and GOOGLE_CSE_ID not set' })
  for (const entry of Object.values(status.engine_health)) {
    t.type(entry.ok, 'boolean')
    t.type(entry.kind, 'string')
    t.type(entry.reason, 'string')
    t.ok(Number.isInteger(entry.age_s), 'age_s is an integer')
  }
  t.equal(status.recommended_engine, 'serper')
  t.type(status.note, 'string')
})

t.test('every field names engines as `engines` does: duckduckgo, never its backend ids', async t => {
  const clock = movableClock()
  const health = createEngineHealth({ clock, cooldownSeconds: 600 })
  health.recordBlocked('duckduckgo_html', 'anomaly page')
  clock.advance(10)
  let status = health.statusRecord({ credential: noKeys, proxyConfigured: false })
  t.same(status.engines_blocked, ['duckduckgo'])
  t.same(status.engine_health.duckduckgo, { ok: false, kind: 'blocked', reason: 'anomaly page', age_s: 10, cooldown_remaining_s: 590, backend: 'duckduckgo_html' })
  t.equal(status.recommended_engine, 'duckduckgo', 'auto would use the lite backend, which is still duckduckgo')
  t.match(status.note, /would use duckduckgo now/)

  health.recordOk('duckduckgo_lite', '8 results')
  status = health.statusRecord({ credential: noKeys, proxyConfigured: false })
  t.same(status.engines_working, ['duckduckgo'], 'one backend answering makes the engine work')
  t.same(status.engines_blocked, [])
  t.match(status.engine_health.duckduckgo, { ok: true, kind: 'ok', backend: 'duckduckgo_lite' })

  const named = new Set<string>(status.engines)
  const listed = [...status.engines_working, ...status.engines_blocked, ...status.engines_unconfigured, ...Object.keys(status.engine_health), status.recommended_engine]
  t.ok(listed.every(name => named.has(name)), `every name is one of engines: ${listed.join(', ')}`)
  t.notMatch(status.note, /duckduckgo_(html|lite)/)
})

t.test('two instances never share observations (no module state)', async t => {
  const a = createEngineHealth()
  const b = createEngineHealth()
  a.recordBlocked('bing', 'HTTP 429')
  t.equal(b.observation('bing'), undefined)
  t.equal(b.observed, false)
})

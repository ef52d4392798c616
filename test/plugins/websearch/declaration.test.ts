// The declaration the kernel loads: key, agent tools, schemas that compile,
// examples that validate, per-app state and the search status endpoint.
import t from 'tap'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import websearch from '../../../plugins/websearch/index.ts'
import { EngineHealth } from '../../../plugins/websearch/engine-health.ts'
import { readToolSettings } from '../../../core/tools/tool-settings.ts'
import { MemorySharedState } from '../../../core/shared-state/memory-shared-state.ts'
import { groupSharedState } from '../../../core/shared-state/shared-state.ts'

t.test('key, agent names, renames', async t => {
  t.equal(websearch.key, 'websearch')
  t.equal(websearch.agentName, 'web_search')
  t.same(websearch.renames, { limit: 'max_results' })
  t.same(websearch.agentTools?.map(a => a.name), ['web_search', 'web_search_scrape', 'scrape_web_pages'])
  t.same(websearch.agentTools?.find(a => a.name === 'web_search_scrape')?.fixed, { scrape_results: true })
  for (const tool of websearch.agentTools ?? []) {
    t.match(tool.description, /Example: \{/, `${tool.name} description ends with an example`)
    t.ok(tool.examples.length > 0, `${tool.name} has examples`)
  }
})

t.test('schemas compile and every example validates', async t => {
  const input = Compile(websearch.input)
  Compile(websearch.row)
  for (const example of websearch.examples) t.ok(input.Check(example.args), `REST example: ${example.task}`)
  for (const tool of websearch.agentTools ?? []) {
    const agentInput = Compile(tool.input!)
    for (const example of tool.examples) t.ok(agentInput.Check(example.args), `${tool.name} example: ${example.task}`)
  }
  t.notOk(input.Check({ query: 'x', engine: 'altavista' }), 'unknown engine refused')
  t.notOk(input.Check({ query: 'x', country: 'usa' }), 'country is two letters')
  t.same(Value.Default(websearch.input, { query: 'x' }), { query: 'x', scrape_results: false, max_results: 10, engine: 'auto' }, 'defaults')
})

/** createState's kit as the registry makes it, over a fresh memory shared state. */
function stateKit () {
  const memory = new MemorySharedState()
  return { shared: memory.forTool('websearch'), sharedGroup: (group: string) => groupSharedState(memory, group) }
}

t.test('createState makes an independent EngineHealth per call (one per app)', async t => {
  const settings = readToolSettings(websearch, {}) as Parameters<NonNullable<typeof websearch.createState>>[0]
  const a = websearch.createState!(settings, stateKit())
  const b = websearch.createState!(settings, stateKit())
  t.ok(a instanceof EngineHealth)
  t.not(a, b)
})

t.test('GET /api/search/status handler renders the record from the state and the upstream config', async t => {
  const endpoint = websearch.endpoints?.find(e => e.path === '/api/search/status')
  t.ok(endpoint)
  t.equal(endpoint!.method, 'GET')
  t.equal(endpoint!.auth, 'key')
  const state = websearch.createState!(readToolSettings(websearch, { google_cooldown_ms: 60_000 }) as Parameters<NonNullable<typeof websearch.createState>>[0], stateKit()) as EngineHealth
  await state.recordBlocked('google', 'Google consent wall (consent.google.com)')
  const credentials: Record<string, string> = { serper: 'set' }
  const record = await endpoint!.handle({
    state,
    query: {},
    upstream: {
      urls: {},
      credentialNames: { serper: 'SERPER_API_KEY', serpapi: 'SERPAPI_API_KEY', google_cse: 'GOOGLE_CSE_API_KEY', google_cse_cx: 'GOOGLE_CSE_ID' },
      credential: name => credentials[name],
      requireCredential: () => { throw new Error('unused') },
    },
    proxyConfigured: true,
    proxies: [],
  }) as Record<string, unknown>
  t.match(record, {
    providers: { serper: true, serpapi: false, google_cse: false },
    proxy_configured: true,
    google_cooldown_active: true,
    google_ready: false,
    last_google_block_reason: 'Google consent wall (consent.google.com)',
    engine_health_observed: true,
    engines_blocked: ['google'],
    engines_unconfigured: ['serpapi', 'google_cse'],
    recommended_engine: 'serper',
    engine_health: { google: { ok: false, kind: 'blocked', cooldown_remaining_s: 60 } },
  })
})

// What the kernel does with a tool's params before any charge: declared
// alternatives (anyOf/oneOf of required sets in the input schema) refused with
// a 400 naming them, blank text and empty lists not counting as given, and
// per-run fields above a ceiling clamped (tier ceiling and the schema's own
// maximum), never refused. Every refusal here leaves the usage counters at 0.
import t from 'tap'
import { dirname, resolve } from 'node:path'
import { build, signup } from '../helpers/build.ts'
import { startJob, usageOf } from '../helpers/jobs.ts'
import { loadToolsFile } from '../../core/config.ts'
import { ToolRegistry } from '../../core/tools/registry.ts'
import { patternMessage } from '../../core/tools/contract/schema-helpers.ts'

// Every call a job would fail on for want of one of two (or three) parameters, with what the detail must name.
const NEITHER: Array<{ tool: string, params: Record<string, unknown>, names: RegExp }> = [
  { tool: 'websearch', params: { max_results: 5 }, names: /params\.query or params\.urls is required/ },
  { tool: 'websearch', params: { query: '   ' }, names: /params\.query or params\.urls/ },
  { tool: 'websearch', params: { query: ['', ' '] }, names: /params\.query or params\.urls/ },
  { tool: 'email', params: { smtp_check: false }, names: /params\.emails or params\.email is required/ },
  { tool: 'email', params: { emails: [] }, names: /params\.emails or params\.email/ },
  { tool: 'disposable', params: {}, names: /one of params\.items, params\.emails, params\.domains is required/ },
  { tool: 'fbads', params: { ad_reached_countries: ['US'] }, names: /params\.search_terms or params\.search_page_ids is required/ },
  { tool: 'gads', params: { regions: ['US'] }, names: /params\.advertiser or params\.domain is required/ },
  { tool: 'adleads', params: { niche: 'dentists' }, names: /params\.query or params\.niche with params\.city is required/ },
  { tool: 'maps', params: { max_results: 5 }, names: /params\.query or params\.prompt is required/ },
]

t.test('a call with none of the alternatives: 400 naming them, nothing charged', async t => {
  const app = await build(t)
  const user = await signup(app)
  for (const { tool, params, names } of NEITHER) {
    const res = await startJob(app, user.apiKey, params, tool)
    t.equal(res.statusCode, 400, `${tool} ${JSON.stringify(params)}: ${res.body}`)
    t.match(res.json().detail, names, `${tool}: the detail names the alternatives`)
  }
  const both = await startJob(app, user.apiKey, { query: 'widgets', urls: ['https://example.com/'] }, 'websearch')
  t.equal(both.statusCode, 400)
  t.match(both.json().detail, /params\.query or params\.urls, not both/)
  const usage = await usageOf(app, user.apiKey)
  t.equal(usage.calls_today, 0, 'no refused call was charged')
  t.equal(usage.jobs_running, 0)
  t.equal(await app.services.db.job.count(), 0, 'no job was created')
})

t.test('the agent sees the alternatives in its own argument names', async t => {
  const app = await build(t)
  const user = await signup(app)
  const call = await app.inject({
    method: 'POST', url: '/mcp',
    headers: { authorization: `Bearer ${user.apiKey}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'socialA_ads_scrape', arguments: { ad_reached_countries: ['US'] } } },
  })
  const text = call.body
  t.match(text, /arguments\.query or arguments\.search_page_ids is required/, 'fbads renames search_terms to query for agents')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0)
  const tools = (await app.inject({ url: '/mcp/manifest.json' })).json().tools as Array<{ name: string, inputSchema: Record<string, any> }>
  t.same(tools.find(x => x.name === 'socialA_ads_scrape')!.inputSchema.anyOf, [{ required: ['query'] }, { required: ['search_page_ids'] }])
  t.same(tools.find(x => x.name === 'ad_library_lead_finder')!.inputSchema.anyOf, [{ required: ['query'] }, { required: ['niche', 'city'] }])
})

t.test('per-run fields above a ceiling are clamped to the tier ceiling and to the schema maximum, never refused', async t => {
  const configPath = resolve('tools.config.json')
  const registry = await ToolRegistry.load(loadToolsFile(configPath), dirname(configPath))
  const gads = registry.get('gads')!
  const websearch = registry.get('websearch')!
  t.equal(registry.prepareInput(gads, { domain: 'acme.com', max_results: 50 }, 200).max_results, 20, 'gads: its own maximum (20) under the tier ceiling')
  t.equal(registry.prepareInput(gads, { domain: 'acme.com', max_results: 50 }, 5).max_results, 5, 'gads: the tier ceiling under its maximum')
  t.equal(registry.prepareInput(websearch, { query: 'x', max_results: 5000 }, 1000).max_results, 1000, 'websearch: 1000 (its maximum and the Pro ceiling)')
  t.equal(registry.prepareInput(websearch, { query: 'x', max_results: 5000 }, 200).max_results, 200, 'websearch: the Registered ceiling')
  t.equal(registry.prepareInput(websearch, { query: 'x', max_results: 7 }, 200).max_results, 7, 'below both: as given')
  t.throws(() => registry.prepareInput(websearch, { query: 'x', max_results: 0 }, 200), /max_results/, 'below the minimum is still a bad parameter')
})

t.test('a Defaulted field is optional for callers and present in the run\'s input: the kernel fills its schema default in', async t => {
  const configPath = resolve('tools.config.json')
  const registry = await ToolRegistry.load(loadToolsFile(configPath), dirname(configPath))
  const frames = registry.get('video_frames')!
  const schema = frames.declaration.input as unknown as { required?: string[], properties: Record<string, { default?: unknown }> }
  t.same(schema.required, ['url'], 'only the URL is required of a caller')
  t.equal(schema.properties.max_frames!.default, 50, 'the default is in the JSON Schema (agents and OpenAPI read it)')
  const input = registry.prepareInput(frames, { url: 'https://example.com/clip.mp4' }, 200)
  t.same(input, { url: 'https://example.com/clip.mp4', mode: 'interval', every_seconds: 1, scene_threshold: 0.4, max_frames: 50, format: 'jpeg' })
  t.equal(registry.prepareInput(frames, { url: 'https://example.com/clip.mp4', max_frames: 3, format: 'png' }, 200).format, 'png', 'a given value stays')
  for (const { declaration } of registry.enabled()) {
    const tool = declaration.input as unknown as { required?: string[], properties?: Record<string, { default?: unknown }> }
    for (const [name, field] of Object.entries(tool.properties ?? {})) {
      if (field.default !== undefined) t.notOk(tool.required?.includes(name), `${declaration.key}.${name} has a default, so a caller may leave it out`)
    }
  }
})

t.test('control characters in params: 400 before any charge, for every tool; an address refuses tab and line breaks too', async t => {
  const app = await build(t)
  const user = await signup(app)
  const registry = app.services.registry
  const ADDRESS = /^(urls?|websites?|domains?|[a-z0-9_]+_urls?)$/
  let tools = 0
  for (const tool of registry.enabled().filter(x => x.declaration.examples?.length)) {
    const params = structuredClone(tool.declaration.examples![0].args) as Record<string, unknown>
    const keys = Object.keys(params)
    const field = keys.find(k => ADDRESS.test(k) && (typeof params[k] === 'string' || Array.isArray(params[k]))) ??
      keys.find(k => typeof params[k] === 'string')
    if (field === undefined) continue
    tools++
    const spoil = (text: string) => {
      const copy = structuredClone(params)
      const value = copy[field]
      copy[field] = Array.isArray(value) ? [`${value[0]}${text}`, ...value.slice(1)] : `${value}${text}`
      return copy
    }
    const nul = await startJob(app, user.apiKey, spoil('\u0000'), tool.declaration.key)
    t.equal(nul.statusCode, 400, `${tool.declaration.key}: a NUL in ${field}`)
    t.match(nul.json().detail, new RegExp(`params\\.${field}(\\[0\\])? contains a control character \\(U\\+0000\\)`), `${tool.declaration.key}: the detail names the param`)
    t.equal((await startJob(app, user.apiKey, spoil('\u009b'), tool.declaration.key)).statusCode, 400, `${tool.declaration.key}: a C1 control (CSI) in ${field}`)
    if (ADDRESS.test(field)) {
      const newline = await startJob(app, user.apiKey, spoil('/\nadmin'), tool.declaration.key)
      t.equal(newline.statusCode, 400, `${tool.declaration.key}: a line feed in the address ${field}`)
      t.match(newline.json().detail, /no address may hold/)
    }
  }
  t.ok(tools >= 20, `every tool with an example was tried (${tools})`)
  const usage = await usageOf(app, user.apiKey)
  t.equal(usage.calls_today, 0, 'nothing was charged')
  t.equal(await app.services.db.job.count(), 0, 'no job was created')
})

t.test('a malformed address (URL, website, domain, link): 400 naming the param before any charge, for every tool', async t => {
  const app = await build(t)
  const user = await signup(app)
  const ADDRESS = /^(urls?|websites?|domains?|[a-z0-9_]+_urls?)$/
  // A text param whose description offers a link (a profile link, a post link) takes addresses too, whatever its name.
  const TAKES_LINKS = /\b(links?|urls?)\b/i
  type Schema = { type?: string, pattern?: string, enum?: unknown[], const?: unknown, description?: string, anyOf?: Schema[], items?: Schema, properties?: Record<string, Schema>, required?: string[], oneOf?: Schema[] }
  // The string schemas a param takes: itself, a union's branches, a list's items.
  const strings = (schema: Schema): Schema[] => schema.anyOf ? schema.anyOf.flatMap(strings) : schema.type === 'array' ? strings(schema.items!) : schema.type === 'string' ? [schema] : []
  const takesOne = (schema: Schema) => (schema.anyOf ?? [schema]).some(s => s.type === 'string')
  const BAD = ['not a url at all', 'ftp://files.example/a.csv', 'javascript:alert(1)']
  const checked: string[] = []
  for (const tool of app.services.registry.enabled()) {
    const input = tool.declaration.input as unknown as Schema
    for (const [field, schema] of Object.entries(input.properties ?? {})) {
      const worded = strings(schema).some(s => patternMessage(s.pattern) !== undefined)
      const freeText = strings(schema).some(s => s.enum === undefined && s.const === undefined)
      if (ADDRESS.test(field) || (freeText && TAKES_LINKS.test(schema.description ?? ''))) t.ok(worded, `${tool.declaration.key}.${field} is an address or takes a link: its schema says which (a schema helper's pattern)`)
      if (!worded) continue
      checked.push(`${tool.declaration.key}.${field}`)
      const example = tool.declaration.examples?.find(e => field in (e.args as object)) ?? tool.declaration.examples![0]
      const base = structuredClone(example.args) as Record<string, unknown>
      // Keep only the alternative this field belongs to (websearch: query or urls; disposable: items, emails or domains).
      for (const set of [...(input.anyOf ?? []), ...(input.oneOf ?? [])]) {
        if (!set.required?.includes(field)) for (const other of set.required ?? []) delete base[other]
      }
      const good = base[field]
      for (const bad of BAD) {
        const value = takesOne(schema) ? bad : [bad]
        const res = await startJob(app, user.apiKey, { ...base, [field]: value }, tool.declaration.key)
        t.equal(res.statusCode, 400, `${tool.declaration.key}.${field} = ${JSON.stringify(value)}: ${res.body}`)
        t.match(res.json().detail, new RegExp(`^params\\.${field}(\\.0)? must be an? `), `${tool.declaration.key}: the detail names ${field} and says what it must be`)
      }
      if (good !== undefined && (schema.anyOf ?? [schema]).some(s => s.type === 'array')) {
        const list = [...(Array.isArray(good) ? good : [good]), BAD[0]]
        const res = await startJob(app, user.apiKey, { ...base, [field]: list }, tool.declaration.key)
        t.equal(res.statusCode, 400, `${tool.declaration.key}.${field}: a list with one bad item`)
        t.match(res.json().detail, new RegExp(`^params\\.${field}\\.${list.length - 1} must be an? `), `${tool.declaration.key}: the detail names the item`)
      }
    }
  }
  t.ok(checked.length >= 20, `address params checked: ${checked.join(', ')}`)
  const usage = await usageOf(app, user.apiKey)
  t.equal(usage.calls_today, 0, 'nothing was charged')
  t.equal(await app.services.db.job.count(), 0, 'no job was created')
})

t.test('address params take the forms their descriptions give', async t => {
  const configPath = resolve('tools.config.json')
  const tools = await ToolRegistry.load(loadToolsFile(configPath), dirname(configPath))
  const accepts = (key: string, params: Record<string, unknown>) => t.doesNotThrow(() => tools.prepareInput(tools.get(key)!, params, 200), `${key} ${JSON.stringify(params)}`)
  for (const website of ['acme.com', 'ACME.com/contact', 'https://www.acme.com/about?x=1#team', 'HTTP://127.0.0.1:8080/', 'http://user:secret@127.0.0.1:8080/', 'http://[::1]:8080/', 'bücher.example']) accepts('webemail', { website })
  for (const url of ['dQw4w9WgXcQ', '@Vsauce', 'UCX6OQ3DkcsbYNE6H8uQQuVA', 'youtu.be/dQw4w9WgXcQ', 'https://www.youtube.com/playlist?list=PL1']) accepts('yt', { url })
  accepts('fb', { page: ['cocacola', '119240841493711', 'https://m.facebook.com/pages/Meedan/105510962816034'] })
  accepts('disposable', { domains: ['acme.test', 'xn--bcher-kva.example', 'mail.acme.co.uk.'] })
  accepts('websearch', { urls: ['example.com', 'https://example.org/docs/'] })
  t.throws(() => tools.prepareInput(tools.get('disposable')!, { domains: ['acme.test', 'https://acme.test/'] }, 200), /params\.domains\.1 must be a domain name/)
  t.throws(() => tools.prepareInput(tools.get('dl_tt')!, { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' }, 200), /params\.url must be a TikTok link/)
})

t.test('text params keep tab and line breaks; nested values inherit the address rule', async t => {
  const configPath = resolve('tools.config.json')
  const registry = await ToolRegistry.load(loadToolsFile(configPath), dirname(configPath))
  const websearch = registry.get('websearch')!
  t.equal(registry.prepareInput(websearch, { query: 'plumbers\tin\nLeeds' }, 200).query, 'plumbers\tin\nLeeds', 'a search phrase may hold them')
  t.throws(() => registry.prepareInput(websearch, { urls: ['https://example.com/', 'https://example.org/\r\n'] }, 200), /params\.urls\[1\] contains a control character \(U\+000D\)/)
  t.throws(() => registry.prepareInput(websearch, { query: 'x\u007f' }, 200), /params\.query contains a control character \(U\+007F\)/, 'DEL is refused in any param')
})

import t from 'tap'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { loadConfig } from '../../core/config.ts'
import { ToolRegistry, type AgentTool } from '../../core/tools/registry.ts'
import { RANKER_CONSTANTS, stem, tokenize, ToolFinder } from '../../core/agent/tool-finder.ts'
import { AgentCatalog } from '../../core/agent/agent-catalog.ts'
import { connect, listeningApp } from './_agent.ts'
import { tempDir } from '../helpers/build.ts'

// The real catalogue (tools.config.json): what find_tool ranks in production.
const config = loadConfig({ DATA_DIR: '/tmp/unused', SECRET_KEY: 'test-secret-key-0123456789', TOOLS_CONFIG: resolve('tools.config.json') })
const registry = await ToolRegistry.load(config.tools, resolve('.'))
const finder = new ToolFinder(registry.listAgentTools())
const best = (task: string) => finder.rank(task, 3).map(m => m.tool.name)

t.test('words fold to one form: plurals, spellings, forms and generic synonyms', async t => {
  t.equal(stem('emails'), 'email')
  t.equal(stem('businesses'), 'business')
  t.equal(stem('companies'), 'company')
  t.equal(stem('ads'), 'ad')
  t.equal(stem('running'), stem('runs'))
  t.equal(stem('advertisers'), stem('advertising'))
  t.equal(stem('address'), 'address', 'a double s is not a plural')
  t.same(tokenize('E-mails'), tokenize('email'))
  t.same(tokenize('mail'), tokenize('email'))
  t.same(tokenize('businesses'), tokenize('companies'))
  t.same(tokenize('validate'), tokenize('verify'))
  t.same(tokenize('advertisement'), tokenize('ads'))
  t.same(tokenize('the of a'), [], 'stopwords go')
  t.same(tokenize('top 10 results for 2025'), tokenize('top results'), 'numbers are not search words')
  t.same(tokenize("don't advertise"), ['not', ...tokenize('advertise')], 'a negation stays')
  t.same(tokenize('iPhone'), tokenize('iphone'), 'free text is not split like an identifier')
  t.notSame(tokenize('iPhone'), tokenize('i phone'))
})

t.test('addresses, links and hosts are read as what they are', async t => {
  t.same(tokenize('jane.doe+x@acme.co.uk'), tokenize('email acme'), 'an address, and whose')
  t.same(tokenize('https://example.com/a?b=1'), tokenize('url example'))
  t.same(tokenize('example.com/pricing'), tokenize('url example'))
  t.same(tokenize('stripe.com'), tokenize('domain stripe'))
  t.same(tokenize('https://m.facebook.com/nasa/videos'), tokenize('url facebook'), 'a link says which site it is on')
  t.same(tokenize('jane@mailinator.com'), tokenize('email mailinator'))
})

t.test('the kernel names no tool: tool words come from the plugins\' keywords', async t => {
  const source = readFileSync(new URL('../../core/agent/tool-finder.ts', import.meta.url), 'utf8')
  for (const tool of registry.listAgentTools()) t.notOk(source.includes(tool.name), `tool-finder.ts does not name ${tool.name}`)
  const disposable = registry.agentTool('disposable_email_check')!
  t.ok(disposable.keywords.includes('burner'), 'a plugin\'s keywords reach its agent tool')
  t.ok(best('flag burner sign-ups').includes('disposable_email_check'), 'and find_tool ranks by them')
  const webSearch = registry.agentTool('web_search')!
  const scrapePages = registry.agentTool('scrape_web_pages')!
  t.ok(webSearch.keywords.includes('search engine') && scrapePages.keywords.includes('search engine'), 'declaration keywords are shared by its agent tools')
  t.ok(scrapePages.keywords.includes('title tag') && !webSearch.keywords.includes('title tag'), 'an agent tool adds its own')
})

t.test('on a made-up catalogue: keywords count, other tools\' sentences and quoted text do not', async t => {
  const tool = (name: string, description: string, keywords: string[] = []): AgentTool => ({
    name, title: name.replace(/_/g, ' '), description, restKey: name, inputSchema: {} as never, outputSchema: {} as never, renames: {}, fixed: {}, examples: [], keywords, cues: [], notFor: [], openWorld: true,
  })
  const made = new ToolFinder([
    tool('mailbox_probe', 'Asks the mail server whether an address would be accepted.', ['bounce']),
    tool('burner_check', 'Flags burner domains. For whether a mailbox exists, use mailbox_probe instead.', ['throwaway']),
    tool('page_reader', 'Reads the text of web pages.', ['article text']),
  ])
  const first = (task: string) => made.rank(task, 1)[0]?.tool.name
  t.equal(first('will this mailbox bounce'), 'mailbox_probe')
  t.equal(first('does the mailbox exist'), 'mailbox_probe', 'a sentence naming another tool is not indexed')
  t.equal(first('a throwaway address?'), 'burner_check', 'keywords are indexed')
  t.equal(first('read the article text of "throwaway domains explained"'), 'page_reader', 'quoted text is not the job')
  t.equal(first('"throwaway"'), 'burner_check', 'a task of nothing but quotes is ranked on them')
})

t.test('cues choose between near neighbours; not-for phrases send a task to the neighbour', async t => {
  const tool = (name: string, extra: Partial<AgentTool>): AgentTool => ({
    name, title: 'web search', description: 'Searches the web for pages about a topic.', restKey: name, inputSchema: {} as never, outputSchema: {} as never, renames: {}, fixed: {}, examples: [], keywords: [], cues: [], notFor: [], openWorld: true, ...extra,
  })
  const twins = [tool('alpha_tool', {}), tool('beta_tool', {})]
  const tie = new ToolFinder(twins).rank('search the web about solar panels and read each page', 2)
  t.equal(tie[0]!.score, tie[1]!.score, 'without cues, two tools of the same words tie')
  const withCues = new ToolFinder([tool('alpha_tool', { notFor: ['read'] }), tool('beta_tool', { cues: ['read the pages'] })])
  const first = (task: string) => withCues.rank(task, 1)[0]?.tool.name
  t.equal(first('search the web about solar panels and read each page'), 'beta_tool', 'a cue meets a task that says all its words, in any order')
  t.equal(first('search the web about solar panels'), 'alpha_tool', 'a cue needs all of its words')
  const [read, links] = withCues.rank('pages on the web that read well about solar panels', 2)
  t.equal(read!.tool.name, 'beta_tool')
  t.ok(read!.score > links!.score, 'a not-for phrase lowers its tool')
  const flat = new ToolFinder([tool('alpha_tool', { notFor: ['read'] }), tool('beta_tool', { cues: ['read the pages'] })], { ...RANKER_CONSTANTS, cueBoost: 1, notForFactor: 1 })
  const asKeyword = new ToolFinder([tool('alpha_tool', {}), tool('beta_tool', { keywords: ['read the pages'] })], { ...RANKER_CONSTANTS, cueBoost: 1, notForFactor: 1 })
  const task = 'search the web about solar panels and read each page'
  const scores = (f: ToolFinder) => f.rank(task, 2).map(m => [m.tool.name, m.score])
  t.same(scores(flat), scores(asKeyword), 'with both factors at 1, a cue counts as a keyword and a not-for phrase not at all')
})

t.test('a find_tool phrase that folds to nothing stops the boot, naming the tool', async t => {
  const dir = tempDir(t)
  mkdirSync(join(dir, 'hollow'))
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}')
  const contract = new URL('../../core/tools/contract.ts', import.meta.url).href
  writeFileSync(join(dir, 'hollow', 'index.ts'), `import { defineTool, Type } from '${contract}'
export default defineTool({ key: 'hollow', agentName: 'hollow_tool', title: 'Hollow', description: 'A fixture.', input: Type.Object({}), row: Type.Object({}), examples: [], cues: ['fine'], notFor: ['just the one'], run: async () => {} })
`)
  const registry = await ToolRegistry.load({ tools: [{ key: 'hollow', plugin: './hollow', enabled: true }], retired: [] }, dir)
  t.throws(() => new AgentCatalog(registry), /agent tool "hollow_tool" declares the find_tool phrase "just the one", which has no word/)
  mkdirSync(join(dir, 'blank'))
  writeFileSync(join(dir, 'blank', 'index.ts'), `import { defineTool, Type } from '${contract}'
export default defineTool({ key: 'blank', agentName: 'blank_tool', title: 'Blank', description: 'A fixture.', input: Type.Object({}), row: Type.Object({}), examples: [], cues: [' '], run: async () => {} })
`)
  await t.rejects(ToolRegistry.load({ tools: [{ key: 'blank', plugin: './blank', enabled: true }], retired: [] }, dir), /declares an empty or non-text cue for "blank_tool"/)
})

t.test('a blank keyword stops the boot, naming the plugin', async t => {
  // A temp dir of its own, not t.testdir: .ci/run's suites share the checkout (and .tap/fixtures) at the same time.
  const dir = tempDir(t)
  mkdirSync(join(dir, 'blanky'))
  // An ES module, as the plugins under the project's package.json are.
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}')
  const contract = new URL('../../core/tools/contract.ts', import.meta.url).href
  writeFileSync(join(dir, 'blanky', 'index.ts'), `import { defineTool, Type } from '${contract}'
export default defineTool({ key: 'blanky', agentName: 'blanky_tool', title: 'Blanky', description: 'A fixture.', input: Type.Object({}), row: Type.Object({}), examples: [], keywords: ['fine', ' '], run: async () => {} })
`)
  await t.rejects(ToolRegistry.load({ tools: [{ key: 'blanky', plugin: './blanky', enabled: true }], retired: [] }, dir), /plugin "\.\/blanky" declares an empty or non-text keyword for "blanky_tool"/)
})

t.test('ranks the right tool first for plain-English tasks', async t => {
  const cases: Array<[string, string]> = [
    ['find the contact e-mail addresses on a company website', 'website_email_find'],
    ['get phone numbers from acme.com', 'website_email_find'],
    ['check if these mails are deliverable before a campaign', 'email_verify'],
    ['validate a mailing list', 'email_verify'],
    ['is this a throwaway / temporary mailbox?', 'disposable_email_check'],
    ['search the web for the best CRM', 'web_search'],
    ['google a topic and read the result pages', 'web_search_scrape'],
    ['extract the text of these pages: https://example.com/a', 'scrape_web_pages'],
  ]
  for (const [task, tool] of cases) t.equal(best(task)[0], tool, task)
})

t.test('deterministic, bounded, and empty for unrelated words', async t => {
  t.same(best('verify emails'), best('verify emails'))
  t.equal(finder.rank('email', 2).length, 2)
  t.same(finder.rank('zzzz qqqq', 3), [])
})

t.test('find_tool over MCP returns the best few with example arguments', async t => {
  const { base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  await client.listTools()
  const result = await client.callTool({ name: 'find_tool', arguments: { task: 'find the e-mails of a company website', limit: 2 } }) as CallToolResult
  t.notOk(result.isError)
  const found = result.structuredContent as { task: string, tools: Array<Record<string, any>> }
  t.equal(found.task, 'find the e-mails of a company website')
  t.ok(found.tools.length >= 1 && found.tools.length <= 2)
  t.match(found.tools[0], { name: 'website_email_find', rest_key: 'webemail', title: String, description: String, example_task: String })
  t.type(found.tools[0]!.score, 'number')
  t.ok(found.tools[0]!.example_arguments.website, 'example arguments use agent names')
  t.match((result.content[0] as { text: string }).text, /1\. website_email_find/)

  const none = await client.callTool({ name: 'find_tool', arguments: { task: 'xyzzy plugh' } }) as CallToolResult
  t.same((none.structuredContent as any).tools, [])
  t.match((none.content[0] as { text: string }).text, /No tool matched.*count_rows/)
})

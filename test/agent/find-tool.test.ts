import t from 'tap'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { resolve } from 'node:path'
import { loadConfig } from '../../core/config.ts'
import { ToolRegistry } from '../../core/tools/registry.ts'
import { stem, tokenize, ToolFinder } from '../../core/agent/tool-finder.ts'
import { connect, listeningApp } from './_agent.ts'

// The real catalogue (tools.config.json): what find_tool ranks in production.
const config = loadConfig({ DATA_DIR: '/tmp/unused', SECRET_KEY: 'test-secret-key-0123456789', TOOLS_CONFIG: resolve('tools.config.json') })
const registry = await ToolRegistry.load(config.tools, resolve('.'))
const finder = new ToolFinder(registry.listAgentTools())
const best = (task: string) => finder.rank(task, 3).map(m => m.tool.name)

t.test('words fold to one form: plurals, spellings and synonyms', async t => {
  t.equal(stem('emails'), 'email')
  t.equal(stem('businesses'), 'business')
  t.equal(stem('companies'), 'company')
  t.same(tokenize('E-mails'), tokenize('email'))
  t.same(tokenize('mail'), tokenize('email'))
  t.same(tokenize('leads'), tokenize('businesses'))
  t.same(tokenize('validate'), tokenize('verify'))
  t.same(tokenize('the of a'), [], 'stopwords go')
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

// The tables that describe tools, written from their declarations, so a new
// tool is its folder and its tools.config.json entry and nothing else:
//   - README.md's Tools table: one row per enabled tool of tools.config.json
//     (key and alias paths, agent tools, source, input), in the file's order;
//   - each plugin README's Settings table: one row per setting of the
//     declaration's `settings` schema (name, default, meaning and range).
// The source cell is the plugin README's `Source:` paragraph (what the tool
// reads is prose only its author can write); everything else is the declaration's.
//   node --import tsx scripts/docs-tables.ts           prints the tables
//   node --import tsx scripts/docs-tables.ts --write   puts them between the markers
// test/kernel/readme-tool-table.test.ts and readme-tables.test.ts fail, naming
// the tool, when a table is not the one this writes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { loadToolsFile } from '../core/config.ts'
import { PLUGINS_DIR, ToolRegistry, type LoadedTool } from '../core/tools/registry.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const README = join(ROOT, 'README.md')

export const TOOL_TABLE_START = '<!-- tools table: written by scripts/docs-tables.ts from the declarations -->'
export const TOOL_TABLE_END = '<!-- end of tools table -->'
export const SETTINGS_TABLE_START = '<!-- settings table: written by scripts/docs-tables.ts from the declaration\'s settings -->'
export const SETTINGS_TABLE_END = '<!-- end of settings table -->'

/** The declared tools a table describes: the key, its declaration, the agent tools it serves and its README. */
export interface DescribedTool {
  key: string
  declaration: LoadedTool['declaration']
  agentTools: string[]
  readme: string
  /** A test-only tool (the counter): its README has a Settings table, the main README no row. */
  fixture: boolean
}

interface JsonSchema {
  type?: string | string[]
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  required?: string[]
  properties?: Record<string, JsonSchema>
  default?: unknown
  description?: string
  minimum?: number
  maximum?: number
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ')

/** The tools of tools.config.json that are enabled, with their READMEs (the test counter's too with `withFixtures`). */
export async function describedTools (options: { withFixtures?: boolean } = {}): Promise<DescribedTool[]> {
  // A plugin path is a folder of plugins/, or relative to the config file when it starts with a dot (the registry's rule).
  const folderOf = (plugin: string, configDir: string) => plugin.startsWith('.') || isAbsolute(plugin) ? resolve(configDir, plugin) : join(PLUGINS_DIR, plugin)
  const described = (registry: ToolRegistry, configDir: string, fixture = false) => registry.enabled().map(tool => ({
    key: tool.declaration.key,
    declaration: tool.declaration,
    agentTools: registry.listAgentTools().filter(a => a.restKey === tool.declaration.key).map(a => a.name),
    readme: join(folderOf(tool.config.plugin!, configDir), 'README.md'),
    fixture,
  }))
  const registry = await ToolRegistry.load(loadToolsFile(join(ROOT, 'tools.config.json')), ROOT)
  const tools = described(registry, ROOT)
  if (options.withFixtures) {
    const fixtures = join(ROOT, 'test', 'fixtures')
    const counter = await ToolRegistry.load({ tools: [{ key: 'counter', plugin: './plugins/counter', enabled: true }], retired: [] }, fixtures)
    tools.push(...described(counter, fixtures, true))
  }
  return tools
}

// ------------------------------------------------------------------ Tools table

/** The `Source:` paragraph of a plugin README (up to the next blank line), without the label. */
export function sourceOf (readme: string): string | undefined {
  const match = /(?:^|\n)Source: ([\s\S]*?)(?:\n\s*\n|$)/.exec(readme)
  return match?.[1]!.replace(/\s*\n\s*/g, ' ').trim()
}

const isList = (schema: JsonSchema | undefined) => (schema?.anyOf ?? []).some(s => s.type === 'array') && (schema?.anyOf ?? []).some(s => s.type === 'string')

/** The input cell: the required sets of the input schema (`anyOf`/`oneOf`, else `required`), saying which take a list. */
export function inputCell (input: JsonSchema, upload: boolean): string {
  const sets = (input.oneOf ?? input.anyOf)?.map(s => s.required ?? []) ?? [input.required ?? []]
  const name = (field: string) => `\`${field}\``
  const set = (fields: string[]) => fields.length > 1 ? fields.slice(0, -1).map(name).join(', ') + ` with ${name(fields.at(-1)!)}` : name(fields[0] ?? '')
  const lists = sets.flat().filter(f => isList(input.properties?.[f]))
  let text = sets.filter(s => s.length > 0).map(set).join(' or ')
  if (input.oneOf && sets.length > 1) text += ', not more than one'
  if (lists.length === sets.flat().length && lists.length > 0) text += sets.length > 1 ? ', each a string or a list' : ', a string or a list'
  else if (lists.length > 0) text += ` (${lists.map(name).join(', ')}: a string or a list)`
  if (upload) text += ', or an uploaded file'
  return text || 'none'
}

export function toolRow (tool: DescribedTool): string {
  const aliases = (tool.declaration.aliases ?? []).map(a => `\`${a.method} ${a.path}\``)
  const key = `\`${tool.key}\`${aliases.length > 0 ? ` (+ ${aliases.join(', ')})` : ''}`
  const readme = existsSync(tool.readme) ? readFileSync(tool.readme, 'utf8') : ''
  const source = sourceOf(readme) ?? `(no \`Source:\` paragraph in ${relative(ROOT, tool.readme)})`
  const input = inputCell(tool.declaration.input as JsonSchema, tool.declaration.upload !== undefined)
  return `| ${key} | ${tool.agentTools.map(a => `\`${a}\``).join(', ')} | ${cell(source)} | ${cell(input)} |`
}

export function toolTable (tools: DescribedTool[]): string {
  return ['| key | agent tool(s) | source | input (one of) |', '|---|---|---|---|', ...tools.map(toolRow)].join('\n')
}

// --------------------------------------------------------------- Settings table

function defaultCell (schema: JsonSchema): string {
  if (schema.default === undefined) return 'unset'
  const value = Array.isArray(schema.default) ? `[${schema.default.map(v => JSON.stringify(v)).join(', ')}]` : JSON.stringify(schema.default)
  return `\`${value}\``
}

function rangeOf (schema: JsonSchema): string {
  if (schema.minimum !== undefined && schema.maximum !== undefined) return ` (${schema.minimum} to ${schema.maximum})`
  if (schema.minimum !== undefined) return ` (at least ${schema.minimum})`
  if (schema.maximum !== undefined) return ` (at most ${schema.maximum})`
  return ''
}

/** One row per setting, in the schema's order: `| name | default | meaning (range) |`. */
export function settingsTable (settings: JsonSchema): string {
  const rows = Object.entries(settings.properties ?? {}).map(([name, schema]) =>
    `| \`${name}\` | ${defaultCell(schema)} | ${cell((schema.description ?? '').trim())}${rangeOf(schema)} |`)
  return ['| setting | default | meaning |', '|---|---|---|', ...rows].join('\n')
}

// ---------------------------------------------------------------------- markers

/** The text between two markers, or undefined when they are missing. */
export function between (text: string, start: string, end: string): string | undefined {
  const from = text.indexOf(start)
  const to = text.indexOf(end)
  if (from === -1 || to < from) return undefined
  return text.slice(from + start.length, to).replace(/^\n/, '').replace(/\n$/, '')
}

/** `text` with what lies between the markers replaced by `table`. */
export function withBetween (text: string, start: string, end: string, table: string, file: string): string {
  const from = text.indexOf(start)
  const to = text.indexOf(end)
  if (from === -1 || to < from) throw new Error(`${file} has no "${start}" … "${end}" markers`)
  return `${text.slice(0, from + start.length)}\n${table}\n${text.slice(to)}`
}

/** Every file the tables live in, with the text it should have. */
export async function expectedFiles (tools: DescribedTool[]): Promise<Array<{ file: string, key?: string, before: string, after: string }>> {
  const files: Array<{ file: string, key?: string, before: string, after: string }> = []
  const readme = readFileSync(README, 'utf8')
  files.push({ file: README, before: readme, after: withBetween(readme, TOOL_TABLE_START, TOOL_TABLE_END, toolTable(tools.filter(t => !t.fixture)), 'README.md') })
  const seen = new Set<string>()
  for (const tool of tools) {
    if (!tool.declaration.settings || seen.has(tool.readme)) continue
    seen.add(tool.readme)
    const text = readFileSync(tool.readme, 'utf8')
    files.push({ file: tool.readme, key: tool.key, before: text, after: withBetween(text, SETTINGS_TABLE_START, SETTINGS_TABLE_END, settingsTable(tool.declaration.settings as JsonSchema), relative(ROOT, tool.readme)) })
  }
  return files
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tools = await describedTools({ withFixtures: true })
  if (process.argv.includes('--write')) {
    for (const { file, before, after } of await expectedFiles(tools)) {
      if (after !== before) writeFileSync(file, after)
      process.stdout.write(`${relative(ROOT, file)}: ${after === before ? 'up to date' : 'rewritten'}\n`)
    }
  } else {
    process.stdout.write(toolTable(tools.filter(t => !t.fixture)) + '\n')
    for (const tool of tools.filter(t => t.declaration.settings)) process.stdout.write(`\n${tool.key} (${relative(ROOT, tool.readme)}):\n${settingsTable(tool.declaration.settings as JsonSchema)}\n`)
  }
}

// Loads the tool plugins named in tools.config.json and serves their
// declarations to the kernel: REST keys, agent tools, schemas. Boot fails on
// an unknown plugin folder, a duplicate key or agent name, a declaration whose
// key disagrees with its config entry, a schema that does not compile, a bad
// setting (tool-settings.ts), or an enabled tool whose `uses` are not enabled.
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { isAbsolute, join, resolve } from 'node:path'
import { Compile, type Validator } from 'typebox/compile'
import { Value } from 'typebox/value'
import type { TSchema } from 'typebox'
import { ConfigError, type ToolEntryConfig, type ToolsFileConfig } from '../config.ts'
import { badRequest, describeValidation } from '../errors.ts'
import { listParams, type AgentToolDeclaration, type ListInput, type ProgramProfile, type ToolDeclaration, type ToolExample } from './contract.ts'
import { patternMessage } from './contract/schema-helpers.ts'
import { ToolCatalog } from './catalog.ts'
import { readToolSettings } from './tool-settings.ts'
import { MemorySharedState } from '../shared-state/memory-shared-state.ts'
import { groupSharedState, type SharedStateService } from '../shared-state/shared-state.ts'
import { CODE_EXTENSION } from '../code-location.ts'
import { assertNoControlCharacters } from './control-characters.ts'

export const PLUGINS_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url))

export interface LoadedTool {
  declaration: ToolDeclaration
  config: ToolEntryConfig
  enabled: boolean
  inputCheck: Validator
  /** Compiled with the tool's first row (see load): a process that never runs the tool never builds it. */
  readonly rowCheck: Validator
  perRunFields: string[]
  /** tools.config.json `settings` with the schema's defaults, validated at boot: ctx.settings. */
  settings: Readonly<Record<string, unknown>>
  /** State the plugin keeps across jobs (engine health…), made once per app. */
  state: unknown
}

export interface AgentTool {
  name: string
  title: string
  description: string
  restKey: string
  inputSchema: TSchema
  outputSchema: TSchema
  /** Agent name → REST name. */
  renames: Record<string, string>
  fixed: Record<string, unknown>
  examples: ToolExample[]
  /** find_tool's search words: the declaration's own, then the agent tool's. */
  keywords: string[]
  /** find_tool's phrases that choose this tool over its near neighbours, and those that mean a neighbour fits instead. */
  cues: string[]
  notFor: string[]
  /** Runs reach sources outside this server (the declaration's `openWorld`, default true). */
  openWorld: boolean
}

type RequiredSet = { required?: string[] }
type JsonObjectSchema = TSchema & { type?: string, properties?: Record<string, TSchema & { maximum?: number }>, required?: string[], anyOf?: RequiredSet[], oneOf?: RequiredSet[] }

/** The REST schema with agent names (renames are agent → REST, so they are applied backwards). */
function renameSchema (schema: TSchema, renames: Record<string, string>): TSchema {
  const s = schema as JsonObjectSchema
  if (!s.properties || Object.keys(renames).length === 0) return schema
  const restToAgent = Object.fromEntries(Object.entries(renames).map(([agent, rest]) => [rest, agent]))
  const rename = (names: string[]) => names.map(k => restToAgent[k] ?? k)
  const properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [restToAgent[k] ?? k, v]))
  const required = s.required && rename(s.required)
  // The alternatives (anyOf/oneOf of required sets) name properties too.
  const sets = (list: RequiredSet[] | undefined) => list?.map(set => (set.required ? { ...set, required: rename(set.required) } : set))
  return {
    ...s, properties,
    ...(required ? { required } : {}),
    ...(s.anyOf ? { anyOf: sets(s.anyOf) } : {}),
    ...(s.oneOf ? { oneOf: sets(s.oneOf) } : {}),
  } as TSchema
}

/**
 * The alternatives an input schema declares at its root: `anyOf` (at least
 * one set given) or `oneOf` (exactly one) whose branches are only `required`
 * lists, e.g. anyOf [{required:[query]}, {required:[urls]}]. Other anyOf/oneOf
 * shapes are left to the validator.
 */
function alternativesOf (schema: TSchema): { sets: string[][], exclusive: boolean } | null {
  const s = schema as JsonObjectSchema
  for (const [list, exclusive] of [[s.oneOf, true], [s.anyOf, false]] as const) {
    if (!list?.length) continue
    if (!list.every(b => Array.isArray(b.required) && b.required.length > 0 && Object.keys(b).length === 1)) continue
    return { sets: list.map(b => b.required!), exclusive }
  }
  return null
}

/** A value counts as given when it holds something: not blank text, not an empty or all-blank list. */
function isGiven (value: unknown): boolean {
  if (value === undefined || value === null) return false
  if (typeof value === 'string') return value.trim() !== ''
  if (Array.isArray(value)) return value.some(isGiven)
  return true
}

/** "params.query", "params.niche with params.city" */
const describeSet = (set: string[]) => set.map(name => `params.${name}`).join(' with ')
const describeSets = (sets: string[][]) => sets.length === 2
  ? `${describeSet(sets[0]!)} or ${describeSet(sets[1]!)}`
  : `one of ${sets.map(describeSet).join(', ')}`

function compile (schema: TSchema, what: string): Validator {
  try {
    return Compile(schema)
  } catch (err) {
    throw new ConfigError(`${what} does not compile: ${(err as Error).message}`)
  }
}

/** An enabled tool runs the tools it `uses`: each must be enabled too, so a nested run never meets a missing one. */
function checkUses (loaded: LoadedTool[]): void {
  const enabled = new Set(loaded.filter(t => t.enabled).map(t => t.declaration.key))
  for (const tool of loaded.filter(t => t.enabled)) {
    for (const used of tool.declaration.uses ?? []) {
      if (!enabled.has(used)) throw new ConfigError(`tools.config.json enables the tool "${tool.declaration.key}", which uses the tool "${used}", but "${used}" is not enabled: enable "${used}" or disable "${tool.declaration.key}"`)
    }
  }
}

export class ToolRegistry {
  readonly catalog: ToolCatalog
  private readonly tools = new Map<string, LoadedTool>()
  private readonly agentTools = new Map<string, AgentTool>()
  private readonly programList: ProgramProfile[]

  /**
   * @param settingWarnings what the boot logs about tools.config.json: settings
   *   given under an older name (declaration.renamedSettings), each naming the new one
   */
  private constructor (private readonly file: ToolsFileConfig, loaded: LoadedTool[], readonly settingWarnings: readonly string[] = []) {
    for (const tool of loaded) this.tools.set(tool.declaration.key, tool)
    this.catalog = new ToolCatalog(file, loaded.filter(t => t.enabled).map(t => t.declaration.key))
    this.programList = ToolRegistry.declaredPrograms(loaded.filter(t => t.enabled))
    for (const tool of loaded.filter(t => t.enabled)) {
      for (const agent of this.agentToolsOf(tool)) {
        if (this.agentTools.has(agent.name)) throw new ConfigError(`agent tool name "${agent.name}" is declared twice`)
        this.agentTools.set(agent.name, agent)
      }
    }
  }

  /**
   * `plugin` is a folder under plugins/, or a path (starting with ./ or /)
   * relative to the tools config file, for out-of-tree plugins. `shared` is
   * the app's shared state (Redis with REDIS_URL); each plugin's createState
   * gets its own view of it (default: this process's memory).
   */
  static async load (file: ToolsFileConfig, configDir: string, pluginsDir = PLUGINS_DIR, options: { shared?: SharedStateService } = {}): Promise<ToolRegistry> {
    const shared = options.shared ?? new MemorySharedState()
    const loaded: LoadedTool[] = []
    const settingWarnings: string[] = []
    const entries = file.tools.filter(entry => entry.plugin)
    const indexes = entries.map(entry => {
      const plugin = entry.plugin!
      const folder = plugin.startsWith('.') || isAbsolute(plugin) ? resolve(configDir, plugin) : join(pluginsDir, plugin)
      // index.ts under tsx, index.js in the compiled build (an out-of-tree plugin may ship JavaScript either way).
      return [join(folder, `index${CODE_EXTENSION}`), join(folder, 'index.js')].find(existsSync) ?? join(folder, `index${CODE_EXTENSION}`)
    })
    // All declarations load at once (the module loader's file reads overlap), and are
    // checked in the file's order, so the first problem reported is the one the file's order meets first.
    const imports = indexes.map(index => existsSync(index)
      ? import(pathToFileURL(index).href).then((mod: { default?: ToolDeclaration }) => ({ mod }), (error: unknown) => ({ error }))
      : null)
    for (const [i, entry] of entries.entries()) {
      const imported = await imports[i]
      if (!imported) throw new ConfigError(`tools.config.json: tool "${entry.key}" names the plugin "${entry.plugin}", but ${indexes[i]} does not exist`)
      if ('error' in imported) throw imported.error
      const declaration = imported.mod.default
      if (!declaration || typeof declaration.run !== 'function') throw new ConfigError(`plugin "${entry.plugin}" does not export a tool declaration (export default defineTool({...}))`)
      if (declaration.key !== entry.key) throw new ConfigError(`plugin "${entry.plugin}" declares the key "${declaration.key}" but tools.config.json lists it as "${entry.key}"`)
      if (loaded.some(t => t.declaration.key === declaration.key)) throw new ConfigError(`tool key "${declaration.key}" is declared twice`)
      checkRowIdentity(declaration, entry.plugin!)
      checkListInputs(declaration, entry.plugin!)
      const settings = readToolSettings(declaration, entry.settings, text => settingWarnings.push(text))
      // Input schemas compile here: every call is checked against one before it is
      // charged. Row schemas compile with the tool's first row: compiling (code
      // generation) was a good part of the start. A row schema that could not
      // compile would fail that first job (error, refunded) rather than the boot;
      // test/plugins/contract.test.ts compiles every plugin's row schema.
      let rowCheck: Validator | undefined
      loaded.push({
        declaration,
        config: entry,
        enabled: entry.enabled,
        inputCheck: compile(declaration.input, `the input schema of "${entry.key}"`),
        get rowCheck () { return (rowCheck ??= compile(declaration.row, `the row schema of "${entry.key}"`)) },
        perRunFields: declaration.perRunFields ?? ['max_results', 'max_pages'],
        settings,
        state: declaration.createState ? declaration.createState(settings, { shared: shared.forTool(declaration.key), sharedGroup: group => groupSharedState(shared, group) }) : undefined,
      })
    }
    checkUses(loaded)
    return new ToolRegistry(file, loaded, settingWarnings)
  }

  private agentToolsOf (tool: LoadedTool): AgentTool[] {
    const d = tool.declaration
    const renames = d.renames ?? {}
    // The declaration's examples are REST-shaped; the default agent tool shows them with agent names.
    const restToAgent = Object.fromEntries(Object.entries(renames).map(([agent, rest]) => [rest, agent]))
    const agentExamples = d.examples.map(ex => ({ task: ex.task, args: Object.fromEntries(Object.entries(ex.args as Record<string, unknown>).map(([k, v]) => [restToAgent[k] ?? k, v])) }))
    const declared = (d.agentTools ?? [{ name: d.agentName, title: d.title, description: d.description, examples: agentExamples }]) as AgentToolDeclaration[]
    return declared.map(a => {
      // A schema of its own is checked here; the renamed REST schema compiled as the tool's input already.
      if (a.input) compile(a.input, `the agent input schema of "${a.name}"`)
      const inputSchema = a.input ?? renameSchema(d.input, renames)
      const keywords = [...(d.keywords ?? []), ...(a.keywords ?? [])]
      const cues = [...(d.cues ?? []), ...(a.cues ?? [])]
      const notFor = [...(d.notFor ?? []), ...(a.notFor ?? [])]
      for (const [field, phrases] of [['keyword', keywords], ['cue', cues], ['notFor phrase', notFor]] as const) {
        const blank = phrases.find(k => typeof k !== 'string' || k.trim() === '')
        if (blank !== undefined) throw new ConfigError(`plugin "${tool.config.plugin}" declares an empty or non-text ${field} for "${a.name}"`)
      }
      return { name: a.name, title: a.title, description: a.description, restKey: d.key, inputSchema, outputSchema: d.row, renames, fixed: a.fixed ?? {}, examples: a.examples, keywords, cues, notFor, openWorld: d.openWorld ?? true }
    })
  }

  /** An enabled tool by REST key (after catalog.check). */
  get (key: string): LoadedTool | undefined {
    const t = this.tools.get(key)
    return t?.enabled ? t : undefined
  }

  enabled (): LoadedTool[] { return [...this.tools.values()].filter(t => t.enabled) }

  agentTool (name: string): AgentTool | undefined { return this.agentTools.get(name) }

  /** The programs the enabled tools declare, each once (the kernel runs no other: core/exec). */
  programs (): ProgramProfile[] { return this.programList }

  /** Two tools that run one program share its profile: two different ones stop the boot. */
  private static declaredPrograms (enabled: LoadedTool[]): ProgramProfile[] {
    const byName = new Map<string, ProgramProfile>()
    for (const tool of enabled) {
      for (const profile of tool.declaration.programs ?? []) {
        const known = byName.get(profile.name)
        if (known && known !== profile) throw new ConfigError(`the program "${profile.name}" is declared by two different profiles (tool "${tool.declaration.key}"): tools that run one program share its profile`)
        byName.set(profile.name, profile)
      }
    }
    return [...byName.values()]
  }

  /**
   * Agent names of catalogue tools this server does not run, each with its REST
   * key: the declared names of plugins that are switched off, and the
   * `agent_names` tools.config.json gives keys without a plugin and retired keys.
   */
  unavailableAgentNames (): Map<string, string> {
    const names = new Map<string, string>()
    const add = (name: string, key: string) => {
      if (this.agentTools.has(name)) throw new ConfigError(`agent tool name "${name}" (tool "${key}", not enabled) is also the name of an enabled agent tool`)
      if (names.has(name) && names.get(name) !== key) throw new ConfigError(`agent tool name "${name}" is given to both "${names.get(name)}" and "${key}"`)
      names.set(name, key)
    }
    for (const tool of this.tools.values()) {
      if (tool.enabled) continue
      const d = tool.declaration
      for (const a of d.agentTools ?? [{ name: d.agentName }]) add(a.name, d.key)
    }
    for (const entry of this.file.tools) if (!this.catalog.isEnabled(entry.key)) for (const name of entry.agent_names ?? []) add(name, entry.key)
    for (const entry of this.file.retired) for (const name of entry.agent_names ?? []) add(name, entry.key)
    return names
  }

  listAgentTools (): AgentTool[] { return [...this.agentTools.values()] }

  /** Agent arguments → REST params: renames applied, the agent tool's fixed params added. */
  agentArgsToParams (agent: AgentTool, args: Record<string, unknown>): Record<string, unknown> {
    const params: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(args)) params[agent.renames[k] ?? k] = v
    return { ...params, ...agent.fixed }
  }

  /**
   * Validates params against the tool's input schema (defaults applied),
   * before anything is charged. Per-run fields above the tier's ceiling or the
   * field's own schema maximum are clamped to the lower of the two first:
   * clamping is never an error. Declared alternatives (anyOf/oneOf of required
   * sets) are checked with a detail that names them, and blank text or an
   * empty list does not count as given.
   */
  prepareInput (tool: LoadedTool, params: unknown, maxRecords: number, paramsAt: 'params' | 'body' = 'params'): Record<string, unknown> {
    if (params === null || typeof params !== 'object' || Array.isArray(params)) throw badRequest(`${paramsAt} must be an object.`)
    assertNoControlCharacters(params as Record<string, unknown>, paramsAt)
    const schema = tool.declaration.input as JsonObjectSchema
    const input = Value.Default(schema, structuredClone(params)) as Record<string, unknown>
    for (const field of tool.perRunFields) {
      const v = input[field]
      const ceiling = Math.min(maxRecords, schema.properties?.[field]?.maximum ?? Infinity)
      if (typeof v === 'number' && v > ceiling) input[field] = ceiling
    }
    const alternatives = alternativesOf(schema)
    if (alternatives) {
      const satisfied = alternatives.sets.filter(set => set.every(name => isGiven(input[name])))
      if (satisfied.length === 0) throw badRequest(`${describeSets(alternatives.sets)} is required.`)
      if (alternatives.exclusive && satisfied.length > 1) throw badRequest(`Give ${describeSets(alternatives.sets)}, not both.`)
    }
    if (!tool.inputCheck.Check(input)) {
      // A pattern a schema helper put into words is the most telling issue (a list item's, not the union's "must be array").
      const issues = [...tool.inputCheck.Errors(input)]
      const worded = issues.flatMap(issue => {
        const message = issue.keyword === 'pattern' ? patternMessage((issue.params as { pattern?: unknown }).pattern) : undefined
        return message === undefined ? [] : [{ ...issue, message }]
      })
      throw badRequest(describeValidation(paramsAt, [...worded, ...issues] as never))
    }
    return input
  }
}

/** A declared list reads params of the input schema, each param in one list only. */
function checkListInputs (declaration: ToolDeclaration, plugin: string): void {
  if (declaration.list === undefined) return
  const fields = (declaration.input as { properties?: Record<string, unknown> }).properties ?? {}
  const lists: readonly ListInput<unknown>[] = Array.isArray(declaration.list) ? declaration.list : [declaration.list as ListInput<unknown>]
  const seen = new Set<string>()
  for (const param of lists.flatMap(list => listParams(list))) {
    if (!Object.hasOwn(fields, param)) throw new ConfigError(`plugin "${plugin}" declares the list param "${param}", which is not a field of its input schema`)
    if (seen.has(param)) throw new ConfigError(`plugin "${plugin}" declares the list param "${param}" in two lists`)
    seen.add(param)
  }
}

/** A monitor matches rows by `rowKey` and compares `watch`: each path must start at a field of the row schema. */
function checkRowIdentity (declaration: ToolDeclaration, plugin: string): void {
  const fields = (declaration.row as { properties?: Record<string, unknown> }).properties ?? {}
  for (const [name, paths] of [['rowKey', declaration.rowKey], ['watch', declaration.watch]] as const) {
    if (paths === undefined) continue
    if (!Array.isArray(paths) || (name === 'rowKey' && paths.length === 0)) throw new ConfigError(`plugin "${plugin}" declares ${name} as something other than a list of row fields`)
    for (const path of paths) {
      if (typeof path !== 'string' || !Object.hasOwn(fields, path.split('.')[0]!)) throw new ConfigError(`plugin "${plugin}" declares ${name} "${String(path)}", which is not a field of its row schema`)
    }
  }
}

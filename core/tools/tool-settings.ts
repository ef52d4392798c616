// A tool's settings as its runs see them (ctx.settings): the operator's
// tools.config.json `settings` with the declaration's schema defaults filled in,
// validated once at boot. A bad value is a ConfigError naming the tool and the
// setting, so the server never starts with a setting a job would trip over.
import { Value } from 'typebox/value'
import type { TSchema } from 'typebox'
import { ConfigError } from '../config.ts'
import type { ToolDeclaration } from './contract.ts'

interface Issue { keyword: string, schemaPath: string, instancePath: string, params?: Record<string, unknown>, message?: string }

/** "/allow/0" → "allow[0]": the setting as an operator finds it in the file. */
function settingPath (instancePath: string): string {
  return instancePath.split('/').slice(1).map(part => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`)).join('').replace(/^\./, '')
}

function describe (tool: string, value: unknown, issues: Issue[]): string {
  const where = `tools.config.json: the "${tool}" tool's setting`
  const extra = issues.find(i => i.keyword === 'additionalProperties')
  const unknownName = (extra?.params?.additionalProperties as string[] | undefined)?.[0]
  if (unknownName !== undefined) {
    const base = settingPath(extra!.instancePath)
    return `${where} "${base ? `${base}.` : ''}${unknownName}" is not one it knows (a typo?)`
  }
  // The most specific issue: a wrong value beats the union summary.
  const issue = issues.find(i => i.keyword !== 'anyOf' && i.keyword !== 'const' && i.keyword !== 'boolean') ?? issues.find(i => i.keyword === 'anyOf') ?? issues[0]!
  const path = settingPath(issue.instancePath)
  let got: unknown = value
  for (const part of issue.instancePath.split('/').slice(1)) got = (got as Record<string, unknown> | undefined)?.[part]
  const choices = issues.filter(i => i.keyword === 'const' && i.instancePath === issue.instancePath).map(i => JSON.stringify(i.params?.allowedValue))
  const rule = choices.length > 0 && issue.keyword === 'anyOf' ? `must be one of ${choices.join(', ')}` : (issue.message ?? 'is invalid')
  return path ? `${where} "${path}" ${rule}, got ${JSON.stringify(got)}` : `${where}s ${rule}`
}

/**
 * The operator's settings with every older name the declaration lists moved to
 * its new one (seconds made milliseconds where it says so), one warning each.
 */
function renameSettings (declaration: Pick<ToolDeclaration, 'key' | 'renamedSettings'>, raw: unknown, warn: (text: string) => void): unknown {
  const renames = declaration.renamedSettings
  if (!renames || !raw || typeof raw !== 'object' || Array.isArray(raw)) return raw
  const settings = { ...(raw as Record<string, unknown>) }
  for (const [old, { to, fromSeconds }] of Object.entries(renames)) {
    if (!(old in settings)) continue
    const where = `tools.config.json: the "${declaration.key}" tool's setting "${old}"`
    if (to in settings) throw new ConfigError(`${where} is the older name of "${to}", and both are given: keep "${to}"`)
    const value = settings[old]
    delete settings[old]
    settings[to] = fromSeconds && typeof value === 'number' ? value * 1000 : value
    warn(`${where} is now "${to}"${fromSeconds ? ', in milliseconds' : ''}: rename it to "${to}": ${JSON.stringify(settings[to])}`)
  }
  return settings
}

/**
 * Validates one tool's raw settings against its declaration and returns them
 * with defaults applied, deeply frozen (every job of the app shares them).
 * Throws ConfigError naming the tool and the setting path. Older setting names
 * (declaration.renamedSettings) are accepted, each with a call of `warn`.
 */
export function readToolSettings (declaration: Pick<ToolDeclaration, 'key' | 'settings' | 'renamedSettings'>, raw: unknown, warn: (text: string) => void = () => {}): Readonly<Record<string, unknown>> {
  const schema: TSchema | undefined = declaration.settings
  const given = renameSettings(declaration, raw ?? {}, warn) ?? {}
  if (!schema) {
    const names = given && typeof given === 'object' ? Object.keys(given) : []
    if (names.length > 0) throw new ConfigError(`tools.config.json: the "${declaration.key}" tool takes no settings, but "${names[0]}" is given`)
    return Object.freeze({})
  }
  // Checked once, so by typebox's interpreter (Value.Check): compiling a validator
  // (code generation, then a new Function) for every tool cost the start twice as much.
  let value: unknown
  let valid: boolean
  try {
    value = Value.Default(schema, structuredClone(given))
    valid = Value.Check(schema, value)
  } catch (err) {
    throw new ConfigError(`the settings schema of "${declaration.key}" cannot be checked: ${(err as Error).message}`)
  }
  if (!valid) throw new ConfigError(describe(declaration.key, value, Value.Errors(schema, value) as Issue[]))
  return deepFreeze(value as Record<string, unknown>)
}

function deepFreeze<T> (value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}

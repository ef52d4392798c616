// A form generated from a tool's params JSON Schema (GET /api/tools): enums
// become a select, booleans a checkbox, lists a one-per-line text area,
// numbers a number input with their bounds; titles are the labels (else the
// param's name in words), descriptions the help, defaults are filled in, and
// per-run fields say the tier's clamp. `read()` turns the form back into
// params (empty optional fields left out) after checking every field against
// the schema (required, patterns and formats, ranges, lengths, list sizes),
// each problem written under its field, so a bad input never starts a job.
import { field, h, uid } from './dom.ts'

export interface JsonSchema {
  type?: string | string[]
  title?: string
  format?: string
  pattern?: string
  /** A schema's own words for a value that fails it (the ajv-errors keyword), used before ours. */
  errorMessage?: string
  minLength?: number
  minItems?: number
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  enum?: unknown[]
  const?: unknown
  default?: unknown
  description?: string
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  maxLength?: number
  maxItems?: number
}

type Kind =
  | { kind: 'select', options: string[] }
  | { kind: 'checkbox' }
  | { kind: 'number', integer: boolean }
  | { kind: 'text' }
  | { kind: 'choices', options: string[] }
  | { kind: 'list', items: 'string' | 'number', single: boolean }
  | { kind: 'json' }

/** The values an enum-like schema allows (enum, or anyOf/oneOf of consts), else null. */
function enumValues (schema: JsonSchema): string[] | null {
  if (Array.isArray(schema.enum) && schema.enum.every(v => typeof v === 'string')) return schema.enum as string[]
  const branches = schema.anyOf ?? schema.oneOf
  if (branches?.length && branches.every(b => typeof b.const === 'string')) return branches.map(b => b.const as string)
  return null
}

const isType = (schema: JsonSchema | undefined, type: string) => schema !== undefined && (schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type)))

export function classify (schema: JsonSchema): Kind {
  const options = enumValues(schema)
  if (options) return { kind: 'select', options }
  if (isType(schema, 'boolean')) return { kind: 'checkbox' }
  if (isType(schema, 'integer')) return { kind: 'number', integer: true }
  if (isType(schema, 'number')) return { kind: 'number', integer: false }
  if (isType(schema, 'string')) return { kind: 'text' }
  if (isType(schema, 'array')) {
    const itemOptions = schema.items ? enumValues(schema.items) : null
    if (itemOptions) return { kind: 'choices', options: itemOptions }
    if (isType(schema.items, 'string')) return { kind: 'list', items: 'string', single: false }
    if (isType(schema.items, 'number') || isType(schema.items, 'integer')) return { kind: 'list', items: 'number', single: false }
  }
  // "a string or a list of them"
  const branches = schema.anyOf ?? schema.oneOf
  if (branches?.length === 2) {
    const text = branches.find(b => isType(b, 'string'))
    const list = branches.find(b => isType(b, 'array') && isType(b.items, 'string'))
    if (text && list) return { kind: 'list', items: 'string', single: true }
  }
  return { kind: 'json' }
}

export interface FormContext {
  /** The tier's max_records_per_run and its name, for the clamp notes of per-run fields. */
  maxRecords: number
  tier: string
  perRunFields: string[]
  /** The param an uploaded file stands in for (the tool's `upload.param`), if any. */
  uploadParam?: string
}

export interface GeneratedForm {
  element: HTMLElement
  /**
   * The params, or the problems found, each shown under its field (the first
   * field focused). `given`: params something else provides (an upload's).
   */
  read (given?: ReadonlySet<string>): { params: Record<string, unknown> } | { problems: number, first: HTMLElement | null, summary: string }
  /** Puts stored params back into the fields (run again). */
  load (params: Record<string, unknown>): void
  /** Clears the problems shown (another tool, a new run). */
  clearProblems (): void
}

/** A param's label: its title, else its name in words ("max_pages" → "Max pages"). */
export const labelOf = (name: string, schema: JsonSchema) => schema.title ?? (name.charAt(0).toUpperCase() + name.slice(1)).replace(/_/g, ' ')

const plural = (n: number, one: string) => `${n.toLocaleString()} ${one}${n === 1 ? '' : 's'}`

/** Whether a text is an absolute http(s) URL (`format: uri`/`url`). */
function isWebUrl (text: string): boolean {
  try { const url = new URL(text); return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' } catch { return false }
}

const FORMATS: Record<string, { test: (text: string) => boolean, words: string }> = {
  uri: { test: isWebUrl, words: 'Give a full web address starting with http:// or https://.' },
  url: { test: isWebUrl, words: 'Give a full web address starting with http:// or https://.' },
  email: { test: text => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text), words: 'Give an e-mail address such as name@example.com.' },
  hostname: { test: text => /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(text), words: 'Give a host name such as example.com.' },
}

/** Whether `text` matches a JSON Schema pattern (ECMA-262, as the server reads it); a pattern this browser cannot read is left to the server. */
function matches (pattern: string, text: string): boolean {
  try { return new RegExp(pattern, 'u').test(text) } catch { return true }
}

/**
 * What is wrong with `value` for `schema`, in words for people, or null. A
 * union (a string or a list of them) is fine when one branch is; else the
 * words of the branch of the value's own shape.
 */
export function problemOf (schema: JsonSchema, value: unknown, description = schema.description): string | null {
  const branches = schema.anyOf ?? schema.oneOf
  if (branches?.length) {
    if (branches.some(b => problemOf(b, value, description) === null)) return null
    const own = branches.find(b => (Array.isArray(value) ? isType(b, 'array') : !isType(b, 'array'))) ?? branches[0]!
    return problemOf(own, value, description)
  }
  const own = schema.errorMessage
  const kind = typeof value === 'string' ? ['string'] : typeof value === 'number' ? ['number', 'integer'] : typeof value === 'boolean' ? ['boolean'] : Array.isArray(value) ? ['array'] : ['object']
  if (schema.type !== undefined && !kind.some(type => isType(schema, type))) return own ?? 'This is not the kind of value expected here.'
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) return own ?? `Give at least ${plural(schema.minLength, 'character')}.`
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return own ?? `At most ${plural(schema.maxLength, 'character')}.`
    const format = schema.format ? FORMATS[schema.format] : undefined
    if (format && !format.test(value)) return own ?? format.words
    if (schema.pattern !== undefined && !matches(schema.pattern, value)) return own ?? `“${value.length > 60 ? `${value.slice(0, 60)}…` : value}” is not in the expected form.${description ? ` ${description}` : ''}`
    return null
  }
  if (typeof value === 'number') {
    if (isType(schema, 'integer') && !Number.isInteger(value)) return own ?? 'Give a whole number.'
    if (schema.minimum !== undefined && value < schema.minimum) return own ?? `Give ${schema.minimum.toLocaleString()} or more.`
    if (schema.maximum !== undefined && value > schema.maximum) return own ?? `Give ${schema.maximum.toLocaleString()} or less.`
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return own ?? `Give more than ${schema.exclusiveMinimum.toLocaleString()}.`
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return own ?? `Give less than ${schema.exclusiveMaximum.toLocaleString()}.`
    return null
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return own ?? `Give at least ${plural(schema.minItems, 'item')}.`
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return own ?? `At most ${plural(schema.maxItems, 'item')}, one a line.`
    if (schema.items) {
      for (const [i, item] of value.entries()) {
        const problem = problemOf(schema.items, item, description)
        if (problem) return value.length > 1 ? `Line ${i + 1}: ${problem}` : problem
      }
    }
  }
  return null
}

interface Control {
  name: string
  kind: Kind
  element: HTMLElement
  read (): { value?: unknown, problem?: string }
  write (value: unknown): void
}

function control (name: string, schema: JsonSchema): Control {
  const kind = classify(schema)
  const id = uid(`p-${name}`)
  switch (kind.kind) {
    case 'select': {
      const select = h('select', { id, name },
        schema.default === undefined ? h('option', { value: '' }, '(not set)') : null,
        kind.options.map(o => h('option', { value: o }, o)))
      return { name, kind, element: select, read: () => (select.value === '' ? {} : { value: select.value }), write: v => { select.value = typeof v === 'string' ? v : '' } }
    }
    case 'checkbox': {
      const box = h('input', { id, name, type: 'checkbox' })
      return { name, kind, element: box, read: () => ({ value: box.checked }), write: v => { box.checked = v === true } }
    }
    case 'number': {
      const min = schema.minimum ?? schema.exclusiveMinimum
      const max = schema.maximum ?? schema.exclusiveMaximum
      const input = h('input', { id, name, type: 'number', inputmode: kind.integer ? 'numeric' : 'decimal', step: kind.integer ? 1 : 'any', min, max })
      return {
        name, kind, element: input,
        read: () => {
          if (input.value.trim() === '') return {}
          const n = Number(input.value)
          return Number.isFinite(n) && (!kind.integer || Number.isInteger(n)) ? { value: n } : { problem: `Give a${kind.integer ? ' whole' : ''} number.` }
        },
        write: v => { input.value = typeof v === 'number' ? String(v) : '' },
      }
    }
    case 'text': {
      const input = h('input', { id, name, type: 'text', maxlength: schema.maxLength, autocomplete: 'off' })
      return { name, kind, element: input, read: () => (input.value.trim() === '' ? {} : { value: input.value.trim() }), write: v => { input.value = typeof v === 'string' ? v : '' } }
    }
    case 'choices': {
      const boxes = kind.options.map(o => h('input', { type: 'checkbox', name, value: o, id: uid(`p-${name}`) }))
      const group = h('div', { class: 'checks', id, role: 'group' }, boxes.map(b => h('label', { for: b.id, class: 'check' }, b, ` ${b.value}`)))
      return {
        name, kind, element: group,
        read: () => { const chosen = boxes.filter(b => b.checked).map(b => b.value); return chosen.length ? { value: chosen } : {} },
        write: v => { for (const b of boxes) b.checked = Array.isArray(v) && v.includes(b.value) },
      }
    }
    case 'list': {
      const area = h('textarea', { id, name, rows: 3, autocomplete: 'off', spellcheck: 'false' })
      return {
        name, kind, element: area,
        read: () => {
          const lines = area.value.split('\n').map(l => l.trim()).filter(Boolean)
          if (!lines.length) return {}
          if (kind.items === 'number') {
            const numbers = lines.map(Number)
            return numbers.every(Number.isFinite) ? { value: numbers } : { problem: 'Give one number a line.' }
          }
          return { value: kind.single && lines.length === 1 ? lines[0] : lines }
        },
        write: v => { area.value = Array.isArray(v) ? v.map(String).join('\n') : v === undefined || v === null ? '' : String(v) },
      }
    }
    default: {
      const area = h('textarea', { id, name, rows: 3, autocomplete: 'off', spellcheck: 'false', class: 'mono' })
      return {
        name, kind, element: area,
        read: () => {
          if (area.value.trim() === '') return {}
          try { return { value: JSON.parse(area.value) } } catch { return { problem: 'This is not valid JSON.' } }
        },
        write: v => { area.value = v === undefined ? '' : JSON.stringify(v, null, 2) },
      }
    }
  }
}

/** The alternatives a schema asks for (anyOf/oneOf of required sets): "Give Website", "Give Query or URLs, not both". */
function alternativesOf (schema: JsonSchema): { sets: string[][], exclusive: boolean } | null {
  const sets = (list: JsonSchema[] | undefined) => list?.every(b => Array.isArray(b.required)) ? list.map(b => b.required!) : null
  const any = sets(schema.anyOf)
  if (any) return { sets: any, exclusive: false }
  const one = sets(schema.oneOf)
  if (one) return { sets: one, exclusive: true }
  return null
}

export function generateForm (schema: JsonSchema, context: FormContext): GeneratedForm {
  const properties = schema.properties ?? {}
  const required = new Set(schema.required ?? [])
  const labels = new Map(Object.entries(properties).map(([name, property]) => [name, labelOf(name, property)]))
  const controls: Array<Control & { schema: JsonSchema, mandatory: boolean, problem: HTMLElement }> = []
  const fields: HTMLElement[] = []
  for (const [name, property] of Object.entries(properties)) {
    const c = control(name, property)
    c.write(property.default)
    const upload = context.uploadParam === name
    const mandatory = required.has(name) && property.default === undefined
    const problem = h('p', { class: 'field-problem', id: `${c.element.id}-problem`, hidden: true })
    controls.push({ ...c, schema: property, mandatory, problem })
    const notes: string[] = []
    if (property.description) notes.push(property.description)
    if (upload) notes.push('Or leave it empty and choose a file to upload below.')
    if (c.kind.kind === 'list') notes.push(c.kind.single ? 'One a line; several lines make a list.' : 'One a line.')
    if (c.kind.kind === 'json') notes.push('JSON.')
    if (property.default !== undefined && c.kind.kind !== 'checkbox') notes.push(`Default: ${typeof property.default === 'string' ? property.default : JSON.stringify(property.default)}.`)
    if (context.perRunFields.includes(name)) {
      const ceiling = Math.min(context.maxRecords, property.maximum ?? Infinity)
      notes.push(`At most ${ceiling.toLocaleString()} on the ${context.tier} plan: a larger value is lowered to it.`)
    }
    notes.push(`API name: ${name}.`)
    const label = `${labels.get(name)!}${upload ? ' (or an upload)' : mandatory ? ' (required)' : ''}`
    const helpId = `${c.element.id}-help`
    if (c.kind.kind === 'choices') {
      const legend = uid('lg')
      c.element.setAttribute('aria-labelledby', legend)
      c.element.setAttribute('aria-describedby', helpId)
      fields.push(h('div', { class: 'field' }, h('span', { id: legend, class: 'label' }, label), c.element, h('p', { class: 'help', id: helpId }, notes.join(' ')), problem))
    } else if (c.kind.kind === 'checkbox') {
      c.element.setAttribute('aria-describedby', helpId)
      fields.push(h('div', { class: 'field' }, h('label', { for: c.element.id, class: 'check' }, c.element, ` ${label}`), h('p', { class: 'help', id: helpId }, notes.join(' ')), problem))
    } else {
      const box = field(label, c.element, notes.join(' '))
      box.append(problem)
      fields.push(box)
    }
  }
  const alternatives = alternativesOf(schema)
  const words = (set: string[]) => set.map(name => labels.get(name) ?? name).join(' with ')
  const alternativesText = alternatives ? `Give ${alternatives.sets.map(words).join(' or ')}${alternatives.exclusive ? ', not both' : ''}.` : null
  const element = h('div', { class: 'generated' }, alternativesText ? h('p', { class: 'note' }, alternativesText) : null, fields)

  const show = (c: typeof controls[number], text: string | null) => {
    c.problem.textContent = text ?? ''
    c.problem.hidden = text === null
    const described = (c.element.getAttribute('aria-describedby') ?? '').split(' ').filter(id => id && id !== c.problem.id)
    c.element.setAttribute('aria-describedby', [...described, ...(text === null ? [] : [c.problem.id])].join(' '))
    if (text === null) c.element.removeAttribute('aria-invalid')
    else c.element.setAttribute('aria-invalid', 'true')
  }
  const clearProblems = () => { for (const c of controls) show(c, null) }
  return {
    element,
    clearProblems,
    read (given = new Set()) {
      clearProblems()
      const params: Record<string, unknown> = {}
      let problems = 0
      let first: HTMLElement | null = null
      const fail = (c: typeof controls[number], text: string) => { show(c, text); problems++; first ??= c.element }
      for (const c of controls) {
        const { value, problem } = c.read()
        if (problem) { fail(c, problem); continue }
        if (value === undefined) {
          if (c.mandatory && !given.has(c.name)) fail(c, context.uploadParam === c.name ? 'Fill this in, or choose a file to upload.' : 'Fill this in.')
          continue
        }
        const wrong = problemOf(c.schema, value)
        if (wrong) { fail(c, wrong); continue }
        params[c.name] = value
      }
      if (!problems && alternatives) {
        const has = (name: string) => name in params || given.has(name)
        const satisfied = alternatives.sets.filter(set => set.every(has))
        if (!satisfied.length || (alternatives.exclusive && satisfied.length > 1)) {
          const c = controls.find(c => c.name === alternatives.sets[0]?.[0])
          if (c) fail(c, alternativesText!)
          else problems++
        }
      }
      if (!problems) return { params }
      return { problems, first, summary: problems === 1 ? 'One field needs a change: see the message under it.' : `${problems} fields need a change: see the messages under them.` }
    },
    load (params) {
      for (const c of controls) c.write(params[c.name])
    },
  }
}

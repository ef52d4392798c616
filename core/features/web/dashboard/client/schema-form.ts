// A form generated from a tool's params JSON Schema (GET /api/tools): enums
// become a select, booleans a checkbox, lists a one-per-line text area,
// numbers a number input with their bounds; defaults are filled in,
// descriptions are the fields' help, and per-run fields say the tier's clamp.
// `read()` turns the form back into params (empty optional fields left out).
import { field, h, uid } from './dom.ts'

export interface JsonSchema {
  type?: string | string[]
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
}

export interface GeneratedForm {
  element: HTMLElement
  /** The params, or the first problem found (named by field). */
  read (): { params: Record<string, unknown> } | { problem: string, field: HTMLElement }
  /** Puts stored params back into the fields (run again). */
  load (params: Record<string, unknown>): void
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
          return Number.isFinite(n) && (!kind.integer || Number.isInteger(n)) ? { value: n } : { problem: `${name} must be a${kind.integer ? ' whole' : ''} number.` }
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
            return numbers.every(Number.isFinite) ? { value: numbers } : { problem: `${name}: one number a line.` }
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
          try { return { value: JSON.parse(area.value) } } catch { return { problem: `${name} must be JSON.` } }
        },
        write: v => { area.value = v === undefined ? '' : JSON.stringify(v, null, 2) },
      }
    }
  }
}

/** "Give website", "Give query or urls (not both)". */
function alternativesNote (schema: JsonSchema): string | null {
  const sets = (list: JsonSchema[] | undefined) => list?.every(b => Array.isArray(b.required)) ? list.map(b => b.required!.join(' with ')) : null
  const any = sets(schema.anyOf)
  if (any) return `Give ${any.join(' or ')}.`
  const one = sets(schema.oneOf)
  if (one) return `Give ${one.join(' or ')}, not both.`
  return null
}

export function generateForm (schema: JsonSchema, context: FormContext): GeneratedForm {
  const required = new Set(schema.required ?? [])
  const controls: Control[] = []
  const fields: HTMLElement[] = []
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const c = control(name, property)
    c.write(property.default)
    controls.push(c)
    const notes: string[] = []
    if (property.description) notes.push(property.description)
    if (c.kind.kind === 'list') notes.push(c.kind.single ? 'One a line; several lines make a list.' : 'One a line.')
    if (c.kind.kind === 'json') notes.push('JSON.')
    if (property.default !== undefined && c.kind.kind !== 'checkbox') notes.push(`Default: ${typeof property.default === 'string' ? property.default : JSON.stringify(property.default)}.`)
    if (context.perRunFields.includes(name)) {
      const ceiling = Math.min(context.maxRecords, property.maximum ?? Infinity)
      notes.push(`At most ${ceiling.toLocaleString()} on the ${context.tier} plan: a larger value is lowered to it.`)
    }
    const label = `${name}${required.has(name) && property.default === undefined ? ' (required)' : ''}`
    if (c.kind.kind === 'choices') {
      const legend = uid('lg')
      c.element.setAttribute('aria-labelledby', legend)
      fields.push(h('div', { class: 'field' }, h('span', { id: legend, class: 'label' }, label), c.element, notes.length ? h('p', { class: 'help' }, notes.join(' ')) : null))
    } else if (c.kind.kind === 'checkbox') {
      const helpId = notes.length ? `${c.element.id}-help` : undefined
      if (helpId) c.element.setAttribute('aria-describedby', helpId)
      fields.push(h('div', { class: 'field' }, h('label', { for: c.element.id, class: 'check' }, c.element, ` ${label}`), helpId ? h('p', { class: 'help', id: helpId }, notes.join(' ')) : null))
    } else {
      fields.push(field(label, c.element, notes.join(' ') || undefined))
    }
  }
  const note = alternativesNote(schema)
  const element = h('div', { class: 'generated' }, note ? h('p', { class: 'note' }, note) : null, fields)
  return {
    element,
    read () {
      const params: Record<string, unknown> = {}
      for (const c of controls) {
        const { value, problem } = c.read()
        if (problem) return { problem, field: c.element }
        if (value !== undefined) params[c.name] = value
      }
      return { params }
    },
    load (params) {
      for (const c of controls) c.write(params[c.name])
    },
  }
}

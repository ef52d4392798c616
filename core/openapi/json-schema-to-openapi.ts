// TypeBox emits JSON Schema (draft 2020-12 style); OpenAPI 3.0.3 speaks its own
// dialect of draft 4. This rewrites one into the other, keyword by keyword:
// const → enum, a null branch or type → nullable, patternProperties →
// additionalProperties, numeric exclusive bounds → boolean ones, examples →
// example; keywords 3.0 does not know are dropped.
type Schema = Record<string, unknown>

const DROPPED = new Set(['$schema', '$id', '$anchor', '$comment', '$defs', 'examples', 'prefixItems', 'unevaluatedProperties', 'unevaluatedItems', 'dependentRequired', 'dependentSchemas', 'contentEncoding', 'contentMediaType', 'propertyNames', 'if', 'then', 'else', 'contains', 'minContains', 'maxContains', 'const'])

const isNullSchema = (s: unknown) => typeof s === 'object' && s !== null && (s as Schema).type === 'null'

const jsonType = (value: unknown): string | undefined => {
  if (value === null) return undefined
  if (Array.isArray(value)) return 'array'
  if (Number.isInteger(value)) return 'integer'
  return ({ string: 'string', number: 'number', boolean: 'boolean', object: 'object' } as Record<string, string>)[typeof value]
}

export function toOpenApiSchema (input: unknown): Schema {
  if (typeof input !== 'object' || input === null) return {}
  const source = input as Schema
  const out: Schema = {}

  for (const [key, value] of Object.entries(source)) {
    if (DROPPED.has(key)) continue
    switch (key) {
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toOpenApiSchema(v)]))
        break
      case 'items':
        out.items = Array.isArray(value) ? { anyOf: value.map(toOpenApiSchema) } : toOpenApiSchema(value)
        break
      case 'additionalProperties':
        out.additionalProperties = typeof value === 'boolean' ? value : toOpenApiSchema(value)
        break
      case 'patternProperties': {
        // Record<string, T>: any key maps to T.
        const values = Object.values(value as Record<string, unknown>)
        if (values.length === 1) out.additionalProperties = toOpenApiSchema(values[0])
        else if (values.length > 1) out.additionalProperties = { anyOf: values.map(toOpenApiSchema) }
        break
      }
      case 'anyOf':
      case 'oneOf':
      case 'allOf': {
        const branches = value as unknown[]
        const nonNull = branches.filter(b => !isNullSchema(b))
        if (nonNull.length < branches.length) out.nullable = true
        if (nonNull.length === 1 && key !== 'allOf') Object.assign(out, toOpenApiSchema(nonNull[0]))
        else if (nonNull.length > 0) out[key] = nonNull.map(toOpenApiSchema)
        break
      }
      case 'not':
        out.not = toOpenApiSchema(value)
        break
      case 'type':
        if (Array.isArray(value)) {
          const types = value.filter(t => t !== 'null')
          if (types.length < value.length) out.nullable = true
          if (types.length === 1) out.type = types[0]
          else if (types.length > 1) out.anyOf = types.map(t => ({ type: t }))
        } else if (value === 'null') {
          out.nullable = true
        } else {
          out.type = value
        }
        break
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof value === 'number') {
          out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value
          out[key] = true
        } else {
          out[key] = value
        }
        break
      default:
        out[key] = value
    }
  }
  if ('const' in source) {
    out.enum = [source.const]
    if (out.type === undefined) {
      const t = jsonType(source.const)
      if (t) out.type = t
    }
    if (source.const === null) out.nullable = true
  }
  if (Array.isArray(source.examples) && source.examples.length && out.example === undefined) out.example = source.examples[0]
  mergeLiteralBranches(out)
  // 3.0 allows `nullable` only next to `type` (redocly's nullable-type-sibling).
  if (out.nullable && out.type === undefined) {
    if (Array.isArray(out.enum)) {
      // A nullable enum: its type is its values' type, and null must be among the values (3.0.3).
      const t = out.enum.map(jsonType).find(Boolean)
      if (t) out.type = t
    } else if (out.anyOf || out.oneOf) {
      // A nullable union: the null moves into one branch (one only: a oneOf would match null twice).
      const key = out.anyOf ? 'anyOf' : 'oneOf'
      const branches = out[key] as Schema[]
      const typed = branches.findIndex(b => typeof b.type === 'string')
      if (typed >= 0) branches[typed] = { ...branches[typed], nullable: true }
      else branches.push({ type: 'string', nullable: true, enum: [null] })
      delete out.nullable
    } else if (!out.allOf && !out.$ref && Object.keys(out).filter(k => k !== 'description').length === 1) {
      // A bare null keeps the intent with an enum.
      out.enum = [null]; out.type = 'string'
    }
  }
  if (out.nullable && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
  return out
}

/**
 * A union of literals of one type (TypeBox's Union of Literals) becomes one
 * enum: what generators turn into a string-literal union, and what 3.0 can
 * make nullable.
 */
function mergeLiteralBranches (out: Schema): void {
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = out[key]
    if (!Array.isArray(branches) || branches.length < 2 || out.type !== undefined || out.enum !== undefined) continue
    const literal = (b: Schema) => Array.isArray(b.enum) && typeof b.type === 'string' && Object.keys(b).every(k => k === 'type' || k === 'enum')
    if (!branches.every(literal) || new Set(branches.map(b => b.type)).size !== 1) continue
    out.type = branches[0].type
    out.enum = branches.flatMap(b => b.enum as unknown[])
    delete out[key]
  }
}

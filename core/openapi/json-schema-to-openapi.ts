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
  // 3.0 allows `nullable` only next to `type`; a bare null branch keeps the intent with an enum.
  if (out.nullable && out.type === undefined && !out.anyOf && !out.oneOf && !out.allOf && !out.$ref) {
    if (Object.keys(out).length === 1) { out.enum = [null]; out.type = 'string' }
  }
  return out
}

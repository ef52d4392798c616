// The serializer fastify builds for a route's response schema: fast-json-stringify,
// as fastify's default, fed a copy of the schema in which "this or null" unions
// are written the way fast-json-stringify serializes cheaply.
//
// Why: TypeBox writes a nullable value as `anyOf: [S, {type: 'null'}]`, and for an
// `anyOf` fast-json-stringify picks the branch by running ajv on the value, on
// every answer (for `me`, the whole user object and the usage object: ≈ 4 % of
// its CPU, scripts/bench/README.md). The same schema with `nullable: true` is
// serialized with one `=== null` test. The route's own schema is not changed:
// validation and the OpenAPI document still read the TypeBox union.
import fastJsonStringify from 'fast-json-stringify'

type Schema = Record<string, unknown>

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value)
const isNullOnly = (value: unknown): boolean => isObject(value) && value.type === 'null' && Object.keys(value).length === 1
/** A branch `nullable` can stand beside: one named type, no choice or reference of its own. */
const isPlainTyped = (value: Schema): boolean =>
  typeof value.type === 'string' && value.type !== 'null' && value.nullable === undefined &&
  value.anyOf === undefined && value.oneOf === undefined && value.allOf === undefined && value.$ref === undefined && value.const === undefined

/** A copy of `schema` with every `anyOf`/`oneOf` of one plain typed schema and `{type: 'null'}` written as that schema with `nullable: true`. */
export function serializableSchema (schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializableSchema)
  if (!isObject(schema)) return schema
  const copy: Schema = {}
  for (const [key, value] of Object.entries(schema)) copy[key] = serializableSchema(value)
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = copy[keyword]
    if (!Array.isArray(branches) || branches.length !== 2) continue
    const nullIndex = branches.findIndex(isNullOnly)
    const other = branches[1 - nullIndex] as Schema
    if (nullIndex === -1 || !isObject(other) || !isPlainTyped(other)) continue
    const { [keyword]: _union, ...siblings } = copy
    return { ...siblings, ...other, nullable: true }
  }
  return copy
}

/** fastify's serializer compiler (`app.setSerializerCompiler`): fast-json-stringify on the serializable copy. */
export const responseSerializerCompiler = ({ schema }: { schema: unknown }) =>
  fastJsonStringify(serializableSchema(schema) as Parameters<typeof fastJsonStringify>[0])

// The Standard Schema face the MCP SDK asks of a custom method's params,
// made from a TypeBox schema: TypeBox stays the one source of every schema.
import type { StandardSchemaV1 } from '@modelcontextprotocol/server'
import type { Static, TSchema } from 'typebox'
import { Compile } from 'typebox/compile'

export function standardSchema<T extends TSchema> (schema: T): StandardSchemaV1<unknown, Static<T>> {
  const check = Compile(schema)
  return {
    '~standard': {
      version: 1,
      vendor: 'typebox',
      validate: (value: unknown) => check.Check(value)
        ? { value: value as Static<T> }
        : { issues: [...check.Errors(value)].map(e => ({ message: e.message, path: e.instancePath.split('/').slice(1) })) },
    },
  }
}

// TypeBox helpers every schema of a plugin (and the kernel's own) shares.
import { Type, type Static, type TObject, type TOptional, type TProperties, type TSchema, type TSchemaOptions } from 'typebox'

/** A value that may be null: `Nullable(Type.String())` is `string | null`. */
export function Nullable<T extends TSchema> (schema: T, options: TSchemaOptions = {}) {
  return Type.Union([schema, Type.Null()], options)
}

/**
 * An input field the caller may leave out and a run always has: `value` is its
 * JSON Schema `default`, which the kernel fills in before the run, so
 * `ctx.input` types it as present (RunInput) and run code states no default of
 * its own. `Defaulted(Type.Integer({ minimum: 1 }), 50)`.
 */
export function Defaulted<T extends TSchema, const V extends Static<T>> (schema: T, value: V): TOptional<T & { default: V }> {
  return Type.Optional({ ...schema, default: value }) as unknown as TOptional<T & { default: V }>
}

type DefaultedKeys<Properties extends TProperties> = { [K in keyof Properties]: Properties[K] extends { default: unknown } ? K : never }[keyof Properties]

/**
 * What a run reads as `ctx.input`: the input schema's type with every
 * `Defaulted` field present, since the kernel applied the defaults before the run.
 */
export type RunInput<Input extends TSchema> = Input extends TObject<infer Properties extends TProperties>
  ? Static<Input> & Required<Pick<Static<Input>, DefaultedKeys<Properties> & keyof Static<Input>>>
  : Static<Input>


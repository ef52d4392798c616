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


/**
 * One value or a list of them (`T | T[]`): the list has at least one item and
 * at most `maxItems`. The shape of every list input (ListInput).
 */
export function OneOrMany<T extends TSchema> (item: T, options: { maxItems: number, description?: string }) {
  const { maxItems, ...rest } = options
  return Type.Union([item, Type.Array(item, { minItems: 1, maxItems })], rest)
}

// What a `pattern` means in words, for the 400 a caller gets instead of the
// pattern itself (ToolRegistry.prepareInput reads it through patternMessage).
const PATTERN_MESSAGES = new Map<string, string>()

/**
 * A string matching `pattern` (a JSON Schema pattern, so the same check holds
 * for the kernel, OpenAPI clients and agents), refused with `message` ("must
 * be a …") naming the param when it does not match.
 */
export function PatternString (pattern: string, message: string, options: TSchemaOptions & { minLength?: number, maxLength?: number } = {}) {
  PATTERN_MESSAGES.set(pattern, message)
  return Type.String({ ...options, pattern })
}

/** The words a PatternString gave its pattern, if any. */
export function patternMessage (pattern: unknown): string | undefined {
  return typeof pattern === 'string' ? PATTERN_MESSAGES.get(pattern) : undefined
}

// Address parts: a host name has a dot (labels of anything but white space
// and URL delimiters, so IDN names pass), or is a bracketed IPv6 literal; a
// scheme, when given, is http or https, and only then may user info precede
// the host. So `javascript:…`, `mailto:…`, `ftp://…` and words with spaces
// never match.
const DOMAIN = '(?:[^\\s/?#:@.\\[\\]]+\\.)+[^\\s/?#:@.\\[\\]]+\\.?'
const HOST = `(?:${DOMAIN}|\\[[0-9A-Fa-f:.]+\\])`
const WEBSITE = `(?:[Hh][Tt][Tt][Pp][Ss]?://(?:[^\\s/?#@]+@)?)?${HOST}(?::[0-9]{1,5})?(?:[/?#]\\S*)?`

type AddressOptions = TSchemaOptions & { minLength?: number, maxLength?: number }

/** A website: an http(s) URL or a bare host (`acme.com`, `acme.com/contact`). */
export const WebsiteUrl = (options: AddressOptions = {}) => PatternString(`^${WEBSITE}$`,
  'must be a website address: an http or https URL, or a host name such as example.com', { maxLength: 2000, ...options })

/** A link (as WebsiteUrl) or a platform's own id, handle or name for a thing (no spaces, slashes or colons). */
export const LinkOrId = (options: AddressOptions = {}) => PatternString(`^(?:${WEBSITE}|@?[^\\s/?#:@]+)$`,
  'must be a link (an http or https URL) or an id or name without spaces', { minLength: 1, maxLength: 2000, ...options })

/** A bare domain name (`acme.com`, `xn--bcher-kva.example`). */
export const DomainName = (options: AddressOptions = {}) => PatternString(`^${DOMAIN}$`,
  'must be a domain name such as example.com', { maxLength: 1024, ...options })

/**
 * Several fields of one nullable type, in the order named (the row's column
 * order): `...NullableFields(Type.String(), 'phone', 'fax')` is `phone` and
 * `fax`, each `string | null`.
 */
export function NullableFields<T extends TSchema, const K extends string> (schema: T, ...names: K[]) {
  return Object.fromEntries(names.map(name => [name, Nullable(schema)])) as { [P in K]: ReturnType<typeof Nullable<T>> }
}

// The input and row schemas of the `disposable` tool.
import { Defaulted, DomainName, Nullable, Type, type ListInput, type Static } from '../../core/tools/contract.ts'

const MAX_ITEMS = 5000

/**
 * `items`, `emails` and `domains` are one list (the same check; the names only
 * say what the caller has). No item fails: one that is not an address or a
 * domain is its row (`invalid_input`), a failed MX lookup its row's
 * `mx_error`, both made by checkItems, which batches the MX lookups by domain
 * rather than item by item, so the run reads the list with listItems and
 * runs it without eachItem.
 */
export const ITEMS_LIST = { param: ['items', 'emails', 'domains'], noun: 'items', max: MAX_ITEMS, onItemError: 'row-error' } as const satisfies ListInput<unknown>

const Items = (description: string, item = Type.String({ maxLength: 1024 })) => Type.Optional(Type.Array(item, { minItems: 1, maxItems: MAX_ITEMS, description }))

export const DisposableInput = Type.Object({
  items: Items('Addresses or bare domains, mixed, e.g. ["jane@mailinator.com", "acme.com"].'),
  emails: Items('Addresses (same as items).'),
  domains: Items('Bare domains (same as items; each must be a domain name).', DomainName()),
  check_mx: Defaulted(Type.Boolean({
    description: 'For domains on no list, look up their MX hosts and flag those served by a known disposable provider.',
  }), true),
}, {
  // At least one of the three lists: the kernel refuses a call with none (400, uncharged).
  anyOf: [{ required: ['items'] }, { required: ['emails'] }, { required: ['domains'] }],
})
export type DisposableInput = Static<typeof DisposableInput>

export const DisposableRow = Type.Object({
  input: Type.String(),
  /** The domain judged, as ASCII (punycode); null when the input has none. */
  domain: Nullable(Type.String()),
  disposable: Type.Boolean(),
  reason: Type.Union([
    Type.Literal('deny_list'), Type.Literal('allow_list'), Type.Literal('listed'), Type.Literal('listed_parent'),
    Type.Literal('disposable_mx'), Type.Literal('not_listed'), Type.Literal('invalid_input'),
  ]),
  /** The list entry, allow/deny entry or MX host that decided. */
  matched: Nullable(Type.String()),
  mx_checked: Type.Boolean(),
  mx_hosts: Type.Array(Type.String()),
  /** The DNS error when the MX lookup failed (the row then rests on the lists alone). */
  mx_error: Nullable(Type.String()),
})
export type DisposableRow = Static<typeof DisposableRow>

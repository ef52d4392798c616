// socialB's input and row: the one schema of each (the declaration's and the
// run's types come from here; run.ts never imports index.ts, which loads it).
import { Defaulted, LinkOrId, Nullable, NullableFields, OneOrMany, Type } from '../../core/tools/contract.ts'
import { MAX_ACCOUNTS } from './list.ts'

// A name or a profile link: a malformed link is a 400 before the charge, not a warning of an empty run.
const Account = LinkOrId({ maxLength: 300 })

export const socialBInput = Type.Object({
  username: OneOrMany(Account, { maxItems: MAX_ACCOUNTS, description: 'The Instagram account (name, @name or profile link) whose list to read, or a list of them.' }),
  relation: Defaulted(Type.Union([Type.Literal('followers'), Type.Literal('following')], { description: 'followers: who follows the account; following: whom it follows.' }), 'followers'),
  max_results: Defaulted(Type.Integer({ minimum: 1, description: 'Accounts returned at most over the whole call; clamped to the plan\'s per-run ceiling.' }), 100),
}, { additionalProperties: false })

export const socialBRow = Type.Object({
  of_username: Type.String({ description: 'The account whose list this row is from.' }),
  relation: Type.Union([Type.Literal('followers'), Type.Literal('following')]),
  username: Type.String(),
  full_name: Nullable(Type.String()),
  id: Type.String({ description: 'Instagram\'s numeric user id (pk).' }),
  ...NullableFields(Type.Boolean(), 'verified', 'private'),
  profile_pic_url: Nullable(Type.String()),
})

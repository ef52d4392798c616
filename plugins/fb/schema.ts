// fb's input and row: the one schema of each (the declaration's and the
// run's types come from here; run.ts never imports index.ts, which loads it).
import { LinkOrId, Nullable, NullableFields, OneOrMany, Type } from '../../core/tools/contract.ts'
import { MAX_PAGES } from './list.ts'

export const fbPageRow = Type.Object({
  input_url: Type.String({ description: 'The page URL, name or id as given (the one of the list this row came from).' }),
  found: Type.Boolean({ description: 'The page exists and was read.' }),
  page_id: Nullable(Type.String({ description: 'Numeric page id.' })),
  username: Nullable(Type.String({ description: 'Vanity name (facebook.com/<username>).' })),
  ...NullableFields(Type.String(), 'name', 'url'),
  category: Nullable(Type.String({ description: 'The first of categories.' })),
  categories: Type.Array(Type.String()),
  about: Nullable(Type.String()),
  website: Nullable(Type.String({ description: 'The first of websites.' })),
  websites: Type.Array(Type.String()),
  ...NullableFields(Type.String(), 'phone', 'email', 'address'),
  followers: Nullable(Type.Integer({ description: 'Exact from the Graph API; from the HTML it may be rounded ("5.4M followers").' })),
  ...NullableFields(Type.Integer(), 'likes', 'talking_about'),
  verified: Nullable(Type.Boolean()),
  ...NullableFields(Type.String(), 'profile_image', 'cover_image'),
  source: Nullable(Type.Union([Type.Literal('graph'), Type.Literal('html'), Type.Literal('graph+html')], { description: 'Where the details came from: the Graph API, the public page HTML, or the Graph API completed from the HTML.' })),
  error: Nullable(Type.String({ description: 'Why this page could not be read (not found, an upstream failure).' })),
})

export const fbInput = Type.Object({
  page: OneOrMany(LinkOrId(), { maxItems: MAX_PAGES, description: 'A Facebook page URL (www, m, mbasic or web.facebook.com; /pages/<name>/<id>; profile.php?id=), a vanity name or a numeric page id, or a list of them: one row each, naming it in input_url.' }),
}, { additionalProperties: false })

// products' input and row: the one schema of each (the declaration's, the
// run's and the parsers' types all come from here).
import { Defaulted, Nullable, NullableFields, OneOrMany, Type, WebsiteUrl, type RunInput, type Static } from '../../core/tools/contract.ts'
import { MAX_STORES } from './list.ts'

export const productsInput = Type.Object({
  url: OneOrMany(WebsiteUrl({ minLength: 3 }), {
    maxItems: MAX_STORES,
    description: 'The store\'s address (https://shop.example.com or a bare host), or a list of stores: each is read in turn, up to max_results products apiece, and each row names its store in store_url.',
  }),
  platform: Defaulted(Type.Union([Type.Literal('auto'), Type.Literal('shopify'), Type.Literal('woocommerce'), Type.Literal('schemaorg')], { description: 'auto tries Shopify, then WooCommerce, then a schema.org crawl.' }), 'auto'),
  max_results: Defaulted(Type.Integer({ minimum: 1, description: 'Products returned at most per store; clamped to the plan\'s per-run ceiling, which spans every store of a list.' }), 100),
  max_pages: Defaulted(Type.Integer({ minimum: 1, description: 'Pages read by the schema.org crawl.' }), 50),
}, { additionalProperties: false })

const Variant = Type.Object({
  ...NullableFields(Type.String(), 'id', 'title', 'sku'),
  ...NullableFields(Type.Number(), 'price', 'compare_at_price'),
  currency: Nullable(Type.String()),
  available: Nullable(Type.Boolean()),
  stock_quantity: Nullable(Type.Integer()),
  options: Type.Record(Type.String(), Type.String()),
  ...NullableFields(Type.String(), 'image', 'url'),
})

export const productRow = Type.Object({
  store_url: Type.Optional(Type.String({ description: 'The store address as given (the one of the list this product came from).' })),
  platform: Type.Union([Type.Literal('shopify'), Type.Literal('woocommerce'), Type.Literal('schemaorg')]),
  id: Nullable(Type.String()),
  title: Type.String(),
  ...NullableFields(Type.String(), 'url', 'handle', 'sku', 'brand', 'product_type'),
  categories: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  price: Nullable(Type.Number({ description: 'Lowest price in major units (19.99), over the variants.' })),
  price_max: Nullable(Type.Number()),
  compare_at_price: Nullable(Type.Number({ description: 'The regular price when the product is on sale.' })),
  currency: Nullable(Type.String()),
  available: Nullable(Type.Boolean()),
  stock_status: Nullable(Type.String()),
  stock_quantity: Nullable(Type.Integer()),
  images: Type.Array(Type.String()),
  options: Type.Array(Type.Object({ name: Type.String(), values: Type.Array(Type.String()) })),
  variants: Type.Array(Variant),
  add_ons: Type.Array(Type.Object({
    name: Type.String(),
    type: Nullable(Type.String()),
    required: Nullable(Type.Boolean()),
    options: Type.Array(Type.Object({ label: Type.String(), price: Nullable(Type.Number()) })),
  })),
  rating: Nullable(Type.Number()),
  review_count: Nullable(Type.Integer()),
  ...NullableFields(Type.String(), 'created_at', 'updated_at'),
  source_url: Type.String({ description: 'The catalogue page or product page the row was read from.' }),
})

export type ProductsInput = RunInput<typeof productsInput>
export type ProductRow = Static<typeof productRow>
export type Platform = ProductRow['platform']
export type ProductVariant = ProductRow['variants'][number]
export type ProductOption = ProductRow['options'][number]
export type ProductAddOn = ProductRow['add_ons'][number]

// Tool `products` / agent `product_scrape`: an online store's catalogue, from
// Shopify's /products.json, the WooCommerce Store API, or schema.org JSON-LD.
import { Defaulted, defineTool, Nullable, NullableFields, OneOrMany, Type, WebsiteUrl } from '../../core/tools/contract.ts'
import { ProductsSettingsSchema } from './settings.ts'
import { MAX_STORES, STORES_LIST } from './list.ts'

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

export default defineTool({
  key: 'products',
  agentName: 'product_scrape',
  title: 'Store product catalogue',
  description: 'Returns the product catalogue of an online store, one row per product: title, URL, price (lowest, in major units) and currency, regular price when on sale, stock status, images, brand, categories, options (Size, Color…), variants with their own price/SKU/availability, add-ons, rating, and `platform` telling where the data came from. Reads Shopify\'s /products.json, the WooCommerce Store API, or — for any other store — the sitemap\'s product pages\' schema.org Product markup. Use it to price-check or list what a shop sells. Example: {"url": "shop.example.com", "limit": 100}; a list of stores, {"url": ["shop-a.example", "shop-b.example"]}, reads each in turn.',
  input: Type.Object({
    url: OneOrMany(WebsiteUrl({ minLength: 3 }), {
      maxItems: MAX_STORES,
      description: 'The store\'s address (https://shop.example.com or a bare host), or a list of stores: each is read in turn, up to max_results products apiece, and each row names its store in store_url.',
    }),
    platform: Defaulted(Type.Union([Type.Literal('auto'), Type.Literal('shopify'), Type.Literal('woocommerce'), Type.Literal('schemaorg')], { description: 'auto tries Shopify, then WooCommerce, then a schema.org crawl.' }), 'auto'),
    max_results: Defaulted(Type.Integer({ minimum: 1, description: 'Products returned at most per store; clamped to the plan\'s per-run ceiling, which spans every store of a list.' }), 100),
    max_pages: Defaulted(Type.Integer({ minimum: 1, description: 'Pages read by the schema.org crawl.' }), 50),
  }, { additionalProperties: false }),
  row: productRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['store_url', 'id'],
  watch: ['title', 'price', 'price_max', 'compare_at_price', 'available', 'stock_status', 'stock_quantity'],
  renames: { limit: 'max_results' },
  list: STORES_LIST,
  examples: [
    { task: 'list the products and prices of an online store', args: { url: 'https://shop.example.com', platform: 'auto', max_results: 100, max_pages: 50 } },
    { task: 'get the variants and stock of a Shopify shop', args: { url: 'example-store.myshopify.com', platform: 'shopify', max_results: 250, max_pages: 50 } },
  ],
  keywords: ['online store', 'online shop', 'webshop', 'e-commerce', 'ecommerce', 'shopify', 'woocommerce', 'product catalogue', 'products', 'price list', 'prices', 'price monitoring', 'competitor prices', 'in stock', 'stock levels', 'inventory', 'sku', 'variants', 'sizes and colours', 'what a shop sells', 'items for sale', 'on sale', 'discounts', 'merchandise', 'product feed'],
  cues: ['shopify', 'woocommerce', 'online store', 'online shop', 'product catalogue', 'prices', 'in stock', 'variants'],
  notFor: ['google maps', 'ads', 'emails', 'search results', 'followers'],
  pollSeconds: 3,
  settings: ProductsSettingsSchema,
  renamedSettings: { crawl_concurrency: { to: 'concurrency' }, page_timeout_secs: { to: 'page_timeout_ms', fromSeconds: true } },
  // The run module (and its parsing libraries) loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runProducts(ctx),
})

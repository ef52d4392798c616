// Tool `products` / agent `product_scrape`: an online store's catalogue, from
// Shopify's /products.json, the WooCommerce Store API, or schema.org JSON-LD.
import { defineTool } from '../../core/tools/contract.ts'
import { ProductsSettingsSchema } from './settings.ts'
import { STORES_LIST } from './list.ts'
import { productRow, productsInput } from './schema.ts'

export default defineTool({
  key: 'products',
  agentName: 'product_scrape',
  title: 'Store product catalogue',
  description: 'Returns the product catalogue of an online store, one row per product: title, URL, price (lowest, in major units) and currency, regular price when on sale, stock status, images, brand, categories, options (Size, Color…), variants with their own price/SKU/availability, add-ons, rating, and `platform` telling where the data came from. Reads Shopify\'s /products.json, the WooCommerce Store API, or — for any other store — the sitemap\'s product pages\' schema.org Product markup. Use it to price-check or list what a shop sells. Example: {"url": "shop.example.com", "limit": 100}; a list of stores, {"url": ["shop-a.example", "shop-b.example"]}, reads each in turn.',
  input: productsInput,
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

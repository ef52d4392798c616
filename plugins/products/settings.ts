// The operator's settings for products (tools.config.json, the `settings` of
// the `products` entry), with their defaults; the kernel validates them at boot
// and runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Concurrency, Milliseconds } from '../lib/settings.ts'

export const ProductsSettingsSchema = Type.Object({
  shopify_page_size: Type.Integer({ minimum: 1, maximum: 250, default: 250, description: 'Products per /products.json page (Shopify caps it at 250).' }),
  woo_page_size: Type.Integer({ minimum: 1, maximum: 100, default: 100, description: 'Products per Store API page (WooCommerce caps it at 100).' }),
  concurrency: Concurrency(4, 64, 'Pages fetched at once by the schema.org crawl.'),
  page_timeout_ms: Milliseconds(15_000, 'Timeout of one page of the crawl.'),
  max_sitemaps: Type.Integer({ minimum: 0, maximum: 100, default: 6, description: 'Sitemaps read before the crawl.' }),
}, { additionalProperties: false })

export type ProductsSettings = Static<typeof ProductsSettingsSchema>

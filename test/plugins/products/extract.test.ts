// The pure parsers on real captures (../shared/fixtures/captures/ecommerce, read
// at test time, never copied) and on hand-written Store API / ProductGroup shapes.
import t from 'tap'
import { readCapture } from '../../extract/captures.ts'
import {
  htmlToText, minorToMajor, parseSchemaOrgProducts, parseShopifyProduct, parseWooProduct, shopifyProductsOf, toNumber,
} from '../../../plugins/products/extract.ts'

t.test('Shopify /products.json capture (Nilkamal): variants, options, images, prices, availability', async t => {
  const raw = readCapture(t, 'ecommerce/shopify_products_json_nilkamal_2026.json')
  if (raw === null) return
  const products = shopifyProductsOf(JSON.parse(raw))!
  t.equal(products.length, 2)
  const rows = products.map(p => parseShopifyProduct(p, 'https://www.nilkamalfurniture.com', 'INR', 'https://www.nilkamalfurniture.com/products.json?limit=250&page=1'))
  const [ludo, single] = rows as [typeof rows[0], typeof rows[0]]
  t.equal(ludo.platform, 'shopify')
  t.equal(ludo.id, '7435818598489')
  t.equal(ludo.title, "Nilkamal Genius Ludo Table + 2 Chairs Kid's Study Set")
  t.equal(ludo.url, 'https://www.nilkamalfurniture.com/products/nilkamal-genius-ludo-table-with-2-chairs-set')
  t.equal(ludo.brand, 'Nilkamal Furniture')
  t.equal(ludo.product_type, 'Home Furniture')
  t.ok(ludo.tags.includes('Kids Furnitures'))
  t.same(ludo.options, [{ name: 'Color', values: ['Red', 'Fairy Pink', 'Green', 'Yellow', 'Pepsi Blue'] }])
  t.equal(ludo.variants.length, 5)
  const red = ludo.variants[0]!
  t.match(red, { id: '40685183500377', title: 'Red', sku: 'K2GENIUS5260NWBRDN', price: 2370, compare_at_price: 2420, available: false, currency: 'INR', options: { Color: 'Red' } })
  t.match(red.image, /^https:\/\/cdn\.shopify\.com\/.+\.jpg/)
  t.equal(red.url, `${ludo.url}?variant=40685183500377`)
  t.equal(ludo.price, Math.min(...ludo.variants.map(v => v.price!)))
  t.equal(ludo.currency, 'INR')
  t.equal(ludo.available, ludo.variants.some(v => v.available), 'available when any variant is')
  t.ok(ludo.images.length >= 1)
  t.equal(ludo.description, "Nilkamal Genius Ludo Table + 2 Chairs Kid's Study Set", 'double-encoded body_html reduced to text')

  t.same(single.options, [], 'the Default Title placeholder is not an option')
  t.equal(single.variants.length, 1)
  t.same(single.variants[0]!.options, {})
  t.equal(single.price, 6390)
  t.equal(single.compare_at_price, 16900)
  t.equal(single.available, true)
  t.equal(single.sku, single.variants[0]!.sku, 'a one-variant product carries its SKU')
})

t.test('schema.org Product JSON-LD captures: orientbell (Next.js, five blocks) and parallels', async t => {
  const orient = readCapture(t, 'ecommerce/schemaorg_product_jsonld_orientbell_pdp.html')
  if (orient !== null) {
    const rows = parseSchemaOrgProducts(orient, 'https://www.orientbell.com/ohg-emperador-marble-strips-hl')
    t.equal(rows.length, 1, 'only the Product block becomes a row (Organization, WebPage, breadcrumbs ignored)')
    t.match(rows[0], {
      platform: 'schemaorg',
      title: 'OHG Emperador Marble Strips HL',
      url: 'https://www.orientbell.com/ohg-emperador-marble-strips-hl',
      brand: 'Orientbell',
      price: 84,
      currency: 'INR',
      rating: 5,
      review_count: 5,
    })
    t.equal(rows[0]!.images.length, 2)
    t.match(rows[0]!.description, /Emperador Marble Strips/)
  }
  const parallels = readCapture(t, 'ecommerce/schemaorg_product_jsonld_parallels.html')
  if (parallels !== null) {
    const rows = parseSchemaOrgProducts(parallels, 'https://www.parallels.com/products/desktop/')
    t.equal(rows.length, 1)
    t.match(rows[0], {
      title: 'Parallels Desktop for Mac',
      price: 79.99,
      currency: 'USD',
      available: true,
      stock_status: 'InStock',
      rating: 4,
      review_count: 49,
      sku: 'PDFM15',
      brand: 'Parallels Desktop 15 for Mac',
      url: 'https://www.parallels.com/products/desktop/',
    })
    t.same(rows[0]!.images, ['https://www.parallels.com/fileadmin/images/partners/PDFM14_Box.png'])
  }
})

t.test('ProductGroup with hasVariant, AggregateOffer and @graph', async t => {
  const html = `<html><head><script type="application/ld+json">${JSON.stringify({
    '@context': 'https://schema.org',
    '@graph': [
      { '@type': 'BreadcrumbList', itemListElement: [] },
      {
        '@type': 'ProductGroup', '@id': '#tee', name: 'Logo Tee', productGroupID: 'TEE', brand: { '@type': 'Brand', name: 'Acme' },
        variesBy: ['https://schema.org/size', 'https://schema.org/color'],
        image: [{ '@type': 'ImageObject', url: '/img/tee.jpg' }],
        aggregateRating: { ratingValue: 4.5, reviewCount: '12' },
        hasVariant: [
          { '@type': 'Product', sku: 'TEE-S-RED', name: 'Logo Tee S red', size: 'S', color: 'Red', offers: { '@type': 'Offer', price: '20.00', priceCurrency: 'EUR', availability: 'https://schema.org/InStock' } },
          { '@type': 'Product', sku: 'TEE-M-RED', name: 'Logo Tee M red', size: 'M', color: 'Red', offers: { '@type': 'Offer', price: 22, priceCurrency: 'EUR', availability: 'https://schema.org/OutOfStock' } },
        ],
      },
      { '@type': 'Product', name: 'Mug', sku: 'MUG', offers: { '@type': 'AggregateOffer', lowPrice: '5', highPrice: '9.5', priceCurrency: 'EUR', offerCount: 3 } },
    ],
  })}</script></head><body></body></html>`
  const rows = parseSchemaOrgProducts(html, 'https://shop.test/tee')
  t.equal(rows.length, 2, 'the variants are folded into their group, not separate rows')
  const tee = rows.find(r => r.title === 'Logo Tee')!
  t.equal(tee.brand, 'Acme')
  t.equal(tee.id, 'TEE')
  t.same(tee.options, [{ name: 'size', values: ['S', 'M'] }, { name: 'color', values: ['Red'] }])
  t.same(tee.variants.map(v => [v.sku, v.price, v.available, v.options]), [['TEE-S-RED', 20, true, { size: 'S', color: 'Red' }], ['TEE-M-RED', 22, false, { size: 'M', color: 'Red' }]])
  t.equal(tee.price, 20)
  t.equal(tee.price_max, 22)
  t.equal(tee.currency, 'EUR')
  t.equal(tee.available, true)
  t.same(tee.images, ['https://shop.test/img/tee.jpg'])
  t.equal(tee.rating, 4.5)
  t.equal(tee.review_count, 12)
  const mug = rows.find(r => r.title === 'Mug')!
  t.match(mug, { price: 5, price_max: 9.5, currency: 'EUR', available: null })
})

t.test('WooCommerce Store API product: minor units, variations, attributes, add-ons, stock', async t => {
  const row = parseWooProduct({
    id: 34, name: 'Hoodie &amp; Cap', slug: 'hoodie', type: 'variable', permalink: 'https://woo.test/product/hoodie/', sku: 'woo-hoodie',
    short_description: '<p>Warm.</p>', description: '<p>Long text</p>', on_sale: true,
    prices: { price: '4200', regular_price: '4500', sale_price: '4200', price_range: { min_amount: '4200', max_amount: '4800' }, currency_code: 'JPY', currency_minor_unit: 0 },
    average_rating: '4.50', review_count: 2,
    images: [{ id: 1, src: 'https://woo.test/wp-content/uploads/hoodie.jpg' }],
    categories: [{ id: 1, name: 'Clothing', slug: 'clothing' }], tags: [{ id: 2, name: 'Winter' }], brands: [{ id: 9, name: 'WooBrand' }],
    attributes: [
      { id: 1, name: 'Color', taxonomy: 'pa_color', has_variations: true, terms: [{ id: 1, name: 'Blue', slug: 'blue' }, { id: 2, name: 'Green', slug: 'green' }] },
      { id: 0, name: 'Logo', taxonomy: null, has_variations: true, terms: [{ id: 0, name: 'Yes', slug: 'Yes' }, { id: 0, name: 'No', slug: 'No' }] },
    ],
    variations: [{ id: 35, attributes: [{ name: 'Color', value: 'blue' }, { name: 'Logo', value: 'Yes' }] }, { id: 36, attributes: [{ name: 'pa_color', value: 'green' }, { name: 'Logo', value: null }] }],
    is_in_stock: true, is_on_backorder: false, low_stock_remaining: 3, stock_availability: { text: 'Only 3 left in stock', class: 'in-stock' },
    extensions: { 'woocommerce-product-addons': { addons: [{ name: 'Gift wrap', type: 'checkbox', required: 0, options: [{ label: 'Wrap it', price: '2.50' }] }] } },
  }, 'https://woo.test/wp-json/wc/store/v1/products?per_page=100&page=1')
  t.match(row, {
    platform: 'woocommerce', id: '34', title: 'Hoodie & Cap', url: 'https://woo.test/product/hoodie/', sku: 'woo-hoodie', brand: 'WooBrand',
    price: 4200, price_max: 4800, compare_at_price: 4500, currency: 'JPY', available: true, stock_status: 'in-stock', stock_quantity: 3,
    rating: 4.5, review_count: 2, description: 'Warm.', categories: ['Clothing'], tags: ['Winter'],
  })
  t.same(row.options, [{ name: 'Color', values: ['Blue', 'Green'] }, { name: 'Logo', values: ['Yes', 'No'] }])
  t.same(row.variants.map(v => [v.id, v.options]), [['35', { Color: 'Blue', Logo: 'Yes' }], ['36', { Color: 'Green', Logo: 'any' }]])
  t.same(row.add_ons, [{ name: 'Gift wrap', type: 'checkbox', required: false, options: [{ label: 'Wrap it', price: 2.5 }] }])
})

t.test('number and text helpers', async t => {
  t.equal(toNumber('1,299.50'), 1299.5)
  t.equal(toNumber('1.299,50'), 1299.5)
  t.equal(toNumber('1,299'), 1299)
  t.equal(toNumber('$ 20'), 20)
  t.equal(toNumber(''), null)
  t.equal(minorToMajor('1999', 2), 19.99)
  t.equal(minorToMajor('500', 0), 500)
  t.equal(minorToMajor('12345', 3), 12.345)
  t.equal(htmlToText('<p>a &amp; b</p><p>c</p>'), 'a & b c')
  t.equal(htmlToText(''), null)
  // JSON's lone surrogates (two lows in a row made parse5 throw): read as U+FFFD.
  t.equal(htmlToText('<p>a\udc00\udc00b</p>'), 'a\uFFFD\uFFFDb')
})

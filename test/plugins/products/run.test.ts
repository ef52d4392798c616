// products jobs through the kernel against local stand-ins for each platform's
// real paths: Shopify /products.json pages and /meta.json, the WooCommerce Store
// API pages (X-WP-TotalPages), and a plain shop with robots.txt, a sitemap index,
// a product sitemap and JSON-LD product pages. A 429 ends the job blocked, refunded.
import t from 'tap'
import { jobHarness, PLUGINS, send, sendJson, startServer, withFreshAccount, type ToolEntry } from './_harness.ts'
import { readCapture } from '../../extract/captures.ts'

const productsTool = (settings: Record<string, unknown> = {}): ToolEntry => ({ key: 'products', plugin: `${PLUGINS}/products`, enabled: true, settings })

const productPage = (name: string, sku: string, price: string, availability = 'https://schema.org/InStock') => `<!doctype html><html><head><title>${name}</title>
<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name, sku, brand: { '@type': 'Brand', name: 'Plain' }, image: `/img/${sku}.jpg`, offers: { '@type': 'Offer', price, priceCurrency: 'GBP', availability } })}</script>
</head><body><h1>${name}</h1><a href="/about">About</a></body></html>`

// One app serves every test, each under an account of its own (withFreshAccount): its settings
// are small pages for Shopify and WooCommerce and two pages at once for the crawl, each the
// one a test exercises (no test reaches a platform whose setting another test needs different).
// The app is the parent test's, not the file's root (a top-level app would be shared with the other
// files of a test group, test/groups/).
t.test('products jobs through the kernel, on one app', async t => {
  const products = await jobHarness(t, [productsTool({ shopify_page_size: 2, woo_page_size: 2, concurrency: 2 })])

  function shopifyProduct (n: number) {
    return {
      id: 1000 + n, title: `Chair ${n}`, handle: `chair-${n}`, body_html: `<p>Chair number ${n}</p>`, vendor: 'Acme', product_type: 'Seating', tags: ['chairs'],
      created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-02T00:00:00Z',
      options: [{ name: 'Color', position: 1, values: ['Red', 'Blue'] }],
      variants: [
        { id: 5000 + n * 10, title: 'Red', option1: 'Red', option2: null, option3: null, sku: `CH-${n}-R`, price: `${10 + n}.00`, compare_at_price: null, available: true },
        { id: 5001 + n * 10, title: 'Blue', option1: 'Blue', option2: null, option3: null, sku: `CH-${n}-B`, price: `${12 + n}.50`, compare_at_price: `${20 + n}.00`, available: false },
      ],
      images: [{ id: 1, src: `https://cdn.test/chair-${n}.jpg` }],
    }
  }

  t.test('Shopify: detection, /products.json paging, currency from /meta.json', async t => {
    const all = Array.from({ length: 5 }, (_, i) => shopifyProduct(i + 1))
    const shop = await startServer(t, (req, res) => {
      if (req.url.pathname === '/products.json') {
        const limit = Number(req.url.searchParams.get('limit'))
        const page = Number(req.url.searchParams.get('page'))
        return sendJson(res, 200, { products: all.slice((page - 1) * limit, page * limit) })
      }
      if (req.url.pathname === '/meta.json') return sendJson(res, 200, { name: 'Acme', currency: 'EUR' })
      send(res, 404, 'not found')
    })
    const h = await withFreshAccount(products)
    const { status, rows } = await h.run('products', { url: shop.base })
    t.match(status, { status: 'done', records: 5, summary: { platform: 'shopify', products: 5 } })
    t.same(rows.map(r => r.title), ['Chair 1', 'Chair 2', 'Chair 3', 'Chair 4', 'Chair 5'])
    t.match(rows[0], { platform: 'shopify', currency: 'EUR', price: 11, price_max: 13.5, available: true, url: `${shop.base}/products/chair-1`, description: 'Chair number 1' })
    t.same(rows[0].options, [{ name: 'Color', values: ['Red', 'Blue'] }])
    t.match(rows[0].variants[1], { sku: 'CH-1-B', price: 13.5, compare_at_price: 21, available: false, options: { Color: 'Blue' } })
    const pages = shop.requests.filter(r => r.url.pathname === '/products.json').map(r => r.url.searchParams.get('page'))
    t.same(pages, ['1', '2', '3'], 'paged until a short page')
    t.notOk(shop.requests.some(r => r.url.pathname.startsWith('/wp-json')), 'WooCommerce not probed once Shopify answered')
  })

  t.test('Shopify: max_results stops the paging early', async t => {
    const all = Array.from({ length: 9 }, (_, i) => shopifyProduct(i + 1))
    const shop = await startServer(t, (req, res) => {
      if (req.url.pathname === '/products.json') {
        const limit = Number(req.url.searchParams.get('limit')); const page = Number(req.url.searchParams.get('page'))
        return sendJson(res, 200, { products: all.slice((page - 1) * limit, page * limit) })
      }
      send(res, 404, 'not found')
    })
    const h = await withFreshAccount(products)
    const { status, rows } = await h.run('products', { url: shop.base, max_results: 3 })
    t.match(status, { status: 'done', records: 3 })
    t.equal(rows.length, 3)
    t.equal(rows[0].currency, null, 'no /meta.json: currency unknown')
    t.match(status.warning, /currency/)
    t.same(shop.requests.filter(r => r.url.pathname === '/products.json').map(r => r.url.searchParams.get('page')), ['1', '2'])
  })

  t.test('Shopify answering 429 mid-catalogue ends the job blocked and refunded', async t => {
    const shop = await startServer(t, (req, res) => {
      if (req.url.pathname === '/products.json') {
        if (req.url.searchParams.get('page') === '1') return sendJson(res, 200, { products: [shopifyProduct(1), shopifyProduct(2)] })
        return send(res, 429, 'Too Many Requests', 'text/plain', { 'retry-after': '60' })
      }
      send(res, 404, 'not found')
    })
    const h = await withFreshAccount(products)
    const { status } = await h.run('products', { url: shop.base })
    t.match(status, { status: 'error', blocked: true, refunded: true })
    t.match(status.error, /429/)
    t.equal((await h.usage()).calls_today, 0, 'the call was refunded')
  })

  function wooProduct (n: number) {
    return {
      id: n, name: `Mug ${n}`, slug: `mug-${n}`, type: 'simple', permalink: `https://woo.test/product/mug-${n}/`, sku: `MUG-${n}`,
      short_description: `<p>Mug ${n}</p>`, description: '',
      prices: { price: String(1000 + n), regular_price: String(1500 + n), sale_price: String(1000 + n), price_range: null, currency_code: 'USD', currency_minor_unit: 2 },
      average_rating: '0', review_count: 0, images: [{ id: n, src: `https://woo.test/mug-${n}.jpg` }], categories: [{ id: 1, name: 'Mugs' }], tags: [],
      attributes: [], variations: [], is_in_stock: n % 2 === 1, is_on_backorder: false, low_stock_remaining: null,
      stock_availability: { text: n % 2 === 1 ? 'In stock' : 'Out of stock', class: n % 2 === 1 ? 'in-stock' : 'out-of-stock' }, extensions: {},
    }
  }

  t.test('WooCommerce Store API: detection after Shopify 404, pages by X-WP-TotalPages, minor units', async t => {
    const all = Array.from({ length: 5 }, (_, i) => wooProduct(i + 1))
    const woo = await startServer(t, (req, res) => {
      if (req.url.pathname === '/wp-json/wc/store/v1/products') {
        const per = Number(req.url.searchParams.get('per_page')); const page = Number(req.url.searchParams.get('page'))
        return sendJson(res, 200, all.slice((page - 1) * per, page * per), { 'x-wp-total': String(all.length), 'x-wp-totalpages': String(Math.ceil(all.length / per)) })
      }
      send(res, 404, '<html>Not found</html>')
    })
    const h = await withFreshAccount(products)
    const { status, rows } = await h.run('products', { url: woo.base })
    t.match(status, { status: 'done', records: 5, summary: { platform: 'woocommerce' } })
    t.match(rows[0], { platform: 'woocommerce', title: 'Mug 1', price: 10.01, compare_at_price: 15.01, currency: 'USD', available: true, stock_status: 'in-stock', sku: 'MUG-1' })
    t.match(rows[1], { available: false, stock_status: 'out-of-stock' })
    t.same(woo.requests.filter(r => r.url.pathname.startsWith('/wp-json')).map(r => r.url.searchParams.get('page')), ['1', '2', '3'])
    t.ok(woo.requests.some(r => r.url.pathname === '/products.json'), 'Shopify was probed first')
  })

  t.test('schema.org crawl: robots.txt -> sitemap index -> product sitemap -> JSON-LD pages', async t => {
    const site = await startServer(t, (req, res) => {
      const base = `http://${req.headers.host}`
      switch (req.url.pathname) {
        case '/robots.txt': return send(res, 200, `User-agent: *\nSitemap: ${base}/sitemap_index.xml\n`, 'text/plain')
        case '/sitemap_index.xml': return send(res, 200, `<?xml version="1.0"?><sitemapindex><sitemap><loc>${base}/page-sitemap.xml</loc></sitemap><sitemap><loc>${base}/product-sitemap.xml</loc></sitemap></sitemapindex>`, 'application/xml')
        case '/product-sitemap.xml': return send(res, 200, `<?xml version="1.0"?><urlset><url><loc>${base}/product/kettle</loc></url><url><loc>${base}/product/toaster</loc></url><url><loc>${base}/product/kettle</loc></url></urlset>`, 'application/xml')
        case '/page-sitemap.xml': return send(res, 200, `<?xml version="1.0"?><urlset><url><loc>${base}/about</loc></url></urlset>`, 'application/xml')
        case '/product/kettle': return send(res, 200, productPage('Kettle', 'KET-1', '29.99'))
        case '/product/toaster': return send(res, 200, productPage('Toaster', 'TOA-1', '£45.00', 'https://schema.org/OutOfStock'))
        case '/about': return send(res, 200, '<html><body>About us</body></html>')
        case '/': return send(res, 200, '<html><body><a href="/product/kettle">Kettle</a></body></html>')
        default: return send(res, 404, 'not found')
      }
    })
    const h = await withFreshAccount(products)
    const { status, rows } = await h.run('products', { url: site.base })
    t.match(status, { status: 'done', records: 2, summary: { platform: 'schemaorg', products: 2 } })
    const byTitle = Object.fromEntries(rows.map(r => [r.title, r]))
    t.match(byTitle.Kettle, { platform: 'schemaorg', sku: 'KET-1', price: 29.99, currency: 'GBP', available: true, brand: 'Plain', url: `${site.base}/product/kettle`, images: [`${site.base}/img/KET-1.jpg`] })
    t.match(byTitle.Toaster, { price: 45, available: false, stock_status: 'OutOfStock' })
    t.equal(site.requests.filter(r => r.url.pathname === '/product/kettle').length, 1, 'each page fetched once')
  })

  t.test('schema.org crawl: a site refusing every page with 403 ends blocked', async t => {
    const site = await startServer(t, (req, res) => send(res, req.url.pathname === '/products.json' || req.url.pathname.startsWith('/wp-json') ? 404 : 403, 'Forbidden'))
    const h = await withFreshAccount(products)
    const { status } = await h.run('products', { url: site.base, platform: 'schemaorg' })
    t.match(status, { status: 'error', blocked: true, refunded: true })
    t.match(status.error, /403/)
    t.notOk(site.requests.some(r => r.url.pathname === '/products.json'), 'platform schemaorg skips the probes')
  })

  t.test('a bad store address is the caller\'s error: a 400 naming the field, before any charge', async t => {
    const h = await withFreshAccount(products)
    const res = await h.app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': h.user.apiKey }, payload: { tool: 'products', params: { url: 'not a url at all' } } })
    t.equal(res.statusCode, 400, res.body)
    t.match(res.json().detail, /params\.url must be a website address/)
    t.equal((await h.usage()).calls_today, 0)
  })

  t.test('a list of stores: each read in turn, rows name their store, one charge; a failing store does not sink the others', async t => {
    const shopA = await startServer(t, (req, res) => {
      if (req.url.pathname === '/products.json') return sendJson(res, 200, { products: Number(req.url.searchParams.get('page')) === 1 ? [shopifyProduct(1), shopifyProduct(2)] : [] })
      send(res, 404, 'not found')
    })
    const shopB = await startServer(t, (req, res) => {
      if (req.url.pathname === '/products.json') return sendJson(res, 200, { products: Number(req.url.searchParams.get('page')) === 1 ? [shopifyProduct(7)] : [] })
      send(res, 404, 'not found')
    })
    // A store's refusal is its own: the list goes on to the next site (no 'stop-list').
    const refusing = await startServer(t, (_req, res) => send(res, 429, 'slow down'))
    const h = await withFreshAccount(products)
    const { status, rows } = await h.run('products', { url: [shopA.base, 'http://127.0.0.1:1', refusing.base, shopB.base], platform: 'shopify' })
    t.match(status, { status: 'done', records: 3, blocked: false, warning: /http:\/\/127\.0\.0\.1:1 failed: The upstream failed/ })
    t.match(status.warning, `${refusing.base} failed: The source refused the request`)
    t.same(rows.map(r => [r.store_url, r.title]), [[shopA.base, 'Chair 1'], [shopA.base, 'Chair 2'], [shopB.base, 'Chair 7']])
    t.same(status.summary.stores.map((s: any) => [s.store_url, s.platform ?? null, typeof s.error]), [[shopA.base, 'shopify', 'undefined'], ['http://127.0.0.1:1', null, 'string'], [refusing.base, null, 'string'], [shopB.base, 'shopify', 'undefined']])
    t.equal((await h.usage()).calls_today, 1)

    const allFail = await h.run('products', { url: ['http://127.0.0.1:1', 'http://127.0.0.1:2'], platform: 'shopify' })
    t.match(allFail.status, { status: 'error', refunded: true, error: /127\.0\.0\.1:2/ }, 'every store failed: the last failure is the job\'s')
    t.equal((await h.usage()).calls_today, 1, 'refunded')

    const one = await h.run('products', { url: [refusing.base], platform: 'shopify' })
    t.match(one.status, { status: 'error', blocked: true, refunded: true }, 'a list of one store fails with its store')
  })
})

// Real-sized catalogues: the shared capture's Shopify products (one of about 24 KB, one of about
// 4 KB, as a real store's /products.json answers them) repeated with new ids, so a page of 250 is
// over the default 5 MiB MAX_RESPONSE_BYTES the way a real store's is. Read at test time, never copied.

t.test('capture-sized catalogues over the response cap are read in smaller pages', async t => {
  const capture = readCapture(t, 'ecommerce/shopify_products_json_nilkamal_2026.json')
  if (!capture) return
  const captured = (JSON.parse(capture) as { products: Array<Record<string, any>> }).products
  t.equal(captured.length, 2, 'the capture holds two real products')
  const [large, small] = captured as [Record<string, any>, Record<string, any>]
  t.ok(JSON.stringify(large).length > 24_000, 'one capture product is about 24 KB')
  // Default settings (250 and 100 a page) and the default cap; Pro's per-run ceiling (1000) so a whole catalogue fits.
  const products = await jobHarness(t, [productsTool()])
  const proHarness = async () => {
    const h = await withFreshAccount(products)
    const claimed = await h.app.inject({ method: 'POST', url: '/api/auth/claim-pro', headers: { 'x-api-key': h.user.apiKey } })
    t.equal(claimed.statusCode, 200, 'Pro claimed')
    return h
  }
  const CAP = 5 * 1024 * 1024

  /** The capture's products, nine large to one small, each with an id, handle and variant ids of its own. */
  const catalogue = (count: number): Array<Record<string, any>> => Array.from({ length: count }, (_, i) => {
    const base = i % 10 === 9 ? small : large
    return {
      ...base,
      id: 9_000_000 + i,
      title: `${base.title} #${i}`,
      handle: `${base.handle}-${i}`,
      variants: base.variants.map((v: Record<string, any>, j: number) => ({ ...v, id: 8_000_000 + i * 100 + j, product_id: 9_000_000 + i })),
    }
  })

  /** Serves /products.json as Shopify does, chunked (no Content-Length), one product at a time. */
  const shopifyStore = (all: Array<Record<string, any>>) => startServer(t, (req, res) => {
    if (req.url.pathname === '/meta.json') return sendJson(res, 200, { name: 'Nilkamal', currency: 'INR' })
    if (req.url.pathname !== '/products.json') return send(res, 404, 'not found')
    const limit = Number(req.url.searchParams.get('limit')); const page = Number(req.url.searchParams.get('page'))
    const slice = all.slice((page - 1) * limit, page * limit)
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
    res.on('error', () => {})
    res.write('{"products":[')
    slice.forEach((p, i) => res.write(`${i ? ',' : ''}${JSON.stringify(p)}`))
    res.end(']}')
  })
  /** Every row of a job (the harness reads the first 100). */
  const allRows = async (h: Awaited<ReturnType<typeof proHarness>>, status: Record<string, any>) =>
    (await h.app.inject({ url: `/api/tool-run/${status.job_id}/results?limit=1000`, headers: { 'x-api-key': h.user.apiKey } })).json().results as Array<Record<string, any>>
  const asked = (requests: Array<{ url: URL }>, path: string, size: string) =>
    requests.filter(r => r.url.pathname === path).map(r => `${r.url.searchParams.get(size)}/${r.url.searchParams.get('page')}`)

  t.test('Shopify: a 250-product page of about 5.5 MB is asked for again at 125, and later pages at 125 at once', async t => {
    const all = catalogue(600)
    t.ok(JSON.stringify({ products: all.slice(0, 250) }).length > CAP, 'a page of 250 is over the cap')
    t.ok(JSON.stringify({ products: all.slice(0, 125) }).length < CAP, 'a page of 125 is not')
    const shop = await shopifyStore(all)
    const h = await proHarness()
    const { status } = await h.run('products', { url: shop.base, max_results: 1000 }, 120_000)
    const rows = await allRows(h, status)
    t.match(status, { status: 'done', records: 600, summary: { platform: 'shopify', products: 600 } })
    t.same(rows.map(r => r.id), all.map(p => String(p.id)), 'every product, once, in catalogue order')
    t.match(rows[0], { title: `${large.title} #0`, currency: 'INR', variants: { length: large.variants.length } })
    t.same(asked(shop.requests, '/products.json', 'limit'), ['250/1', '125/1', '125/2', '125/3', '125/4', '125/5'])
    t.match(status.warning, /Shopify catalogue: a page was larger than the 5242880-byte response limit and asked for again in smaller pages \(first http:\/\/127\.0\.0\.1:\d+\/products\.json\?limit=250&page=1\); later pages were asked for 125 products at a time\./)
    t.notMatch(status.warning, /left out/)
  })

  t.test('Shopify: one product over the cap on its own is left out with a warning naming its page; the rest are read', async t => {
    const all = catalogue(30)
    // A product whose description alone is over the cap (a store pasting a whole catalogue PDF as HTML).
    all[7] = { ...all[7], body_html: `<p>${'x'.repeat(CAP + 1024)}</p>` }
    const shop = await shopifyStore(all)
    const h = await proHarness()
    const { status, rows } = await h.run('products', { url: shop.base, max_results: 1000 }, 120_000)
    t.match(status, { status: 'done', records: 29 })
    t.same(rows.map(r => r.id), all.filter((_, i) => i !== 7).map(p => String(p.id)))
    // 250, 125, 25 and 5 hold the product and are over; the pages around it are read one product at a time
    // until the offset is a multiple of 5, then 5 and 25 at a time.
    t.same(asked(shop.requests, '/products.json', 'limit'), ['250/1', '125/1', '25/1', '5/1', '5/2', '1/6', '1/7', '1/8', '1/9', '1/10', '5/3', '5/4', '5/5', '25/2'])
    t.match(status.warning, /Shopify catalogue: 1 product was left out, each larger than the 5242880-byte response limit on its own: http:\/\/127\.0\.0\.1:\d+\/products\.json\?limit=1&page=8\./)
    t.match(status.warning, /asked for again in smaller pages/)
    t.notMatch(status.warning, /later pages were asked for/, 'a page with a product left out does not shrink the pages after it')
  })

  t.test('WooCommerce: a 100-product Store API page over the cap (declared Content-Length) is asked for again at 50', async t => {
    // The Store API's image objects carry WordPress's srcset of every generated width.
    const wooOf = (p: Record<string, any>, i: number) => ({
      id: 9_000_000 + i, name: `${p.title} #${i}`, slug: `${p.handle}-${i}`, type: 'variable', permalink: `https://woo.test/product/${p.handle}-${i}/`, sku: `SKU-${i}`,
      short_description: '', description: p.body_html,
      prices: { price: '129900', regular_price: '149900', sale_price: '129900', price_range: null, currency_code: 'INR', currency_minor_unit: 2 },
      average_rating: '0', review_count: 0,
      images: p.images.map((img: Record<string, any>) => {
        const src = String(img.src).replace(/\?.*$/, '')
        const sized = (w: number) => src.replace(/\.jpg$/, `-${w}x${w}.jpg`)
        return { id: img.id, src, thumbnail: sized(300), srcset: [100, 150, 300, 600, 768, 1024].map(w => `${sized(w)} ${w}w`).concat(`${src} 1500w`).join(', '), sizes: '(max-width: 1500px) 100vw, 1500px', name: src.split('/').pop(), alt: p.title }
      }),
      categories: [{ id: 1, name: p.product_type }], tags: [], attributes: [], variations: p.variants.map((v: Record<string, any>) => ({ id: v.id, attributes: [{ name: 'Color', value: v.option1 }] })),
      is_in_stock: true, is_on_backorder: false, low_stock_remaining: null, stock_availability: { text: 'In stock', class: 'in-stock' }, extensions: {},
    })
    const all = catalogue(230).map(wooOf)
    t.ok(JSON.stringify(all.slice(0, 100)).length > CAP, 'a page of 100 is over the cap')
    t.ok(JSON.stringify(all.slice(0, 50)).length < CAP, 'a page of 50 is not')
    const woo = await startServer(t, (req, res) => {
      if (req.url.pathname !== '/wp-json/wc/store/v1/products') return send(res, 404, '<html>Not found</html>')
      const per = Number(req.url.searchParams.get('per_page')); const page = Number(req.url.searchParams.get('page'))
      res.on('error', () => {})
      sendJson(res, 200, all.slice((page - 1) * per, page * per), { 'x-wp-total': String(all.length), 'x-wp-totalpages': String(Math.ceil(all.length / per)) })
    })
    const h = await proHarness()
    const { status } = await h.run('products', { url: woo.base, platform: 'woocommerce', max_results: 1000 }, 120_000)
    const rows = await allRows(h, status)
    t.match(status, { status: 'done', records: 230, summary: { platform: 'woocommerce', products: 230 } })
    t.same(rows.map(r => r.id), all.map(p => String(p.id)))
    t.same(asked(woo.requests, '/wp-json/wc/store/v1/products', 'per_page'), ['100/1', '50/1', '50/2', '50/3', '50/4', '50/5'])
    t.match(status.warning, /WooCommerce catalogue: a page was larger than the 5242880-byte response limit and asked for again in smaller pages \(first .*per_page=100&page=1\); later pages were asked for 50 products at a time\./)
  })
})

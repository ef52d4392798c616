// What renders the public pages, one per app (the container's `pages`): the
// stylesheets (read and compressed once, static-assets.ts) and the page
// frame, and the HTML error page that page routes and the not-found handler
// answer to browsers. The routes (routes.ts) ask the services for data and
// hand it to the page functions (home-page.ts, blog-pages.ts).
import { readFileSync } from 'node:fs'
import { html } from './html.ts'
import { renderPage, type PageHead } from './layout.ts'
import { buildAsset, type StaticAsset } from './static-assets.ts'
import type { Html } from './html.ts'

const CSS = 'text/css; charset=utf-8'

const ERROR_TITLES: Record<number, string> = {
  400: 'Bad request',
  404: 'Page not found',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
}

export class PublicPages {
  /** Served at /assets/<name>. */
  readonly assets: ReadonlyMap<string, StaticAsset>
  /** The site stylesheet's URL, with its version: cached for a year, replaced when it changes. */
  readonly stylesheet: string

  constructor () {
    const site = buildAsset('site.css', CSS, readFileSync(new URL('./site.css', import.meta.url), 'utf8'))
    this.assets = new Map([[site.name, site]])
    this.stylesheet = `/assets/${site.name}?v=${site.version}`
  }

  render (head: PageHead, body: Html): string {
    return renderPage({ ...head, stylesheet: this.stylesheet, body })
  }

  /** The page a browser gets for an error (the same status and detail a JSON client gets as {detail}). */
  errorPage (status: number, detail: string): string {
    const title = ERROR_TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'This request cannot be answered')
    return this.render({ title, description: detail, noindex: true }, html`<h1>${title}</h1>
<p class="lead">${detail}</p>
<p><a href="/">Home</a> · <a href="/blog">Blog</a> · <a href="/docs">API docs</a></p>`)
  }
}

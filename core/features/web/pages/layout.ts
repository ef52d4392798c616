// The frame every public page shares: head (title, description, canonical and
// Open Graph tags, the one stylesheet), the top bar with the links a visitor
// needs (tools, blog, API docs, agent guide, sign up, log in) and the footer.
// No script and no inline style: the pages read the same without JavaScript,
// and the CSP (security-headers.ts) would refuse either.
import { html, safeUrl, type Html } from './html.ts'

export const SITE_NAME = 'Data-extraction jobs'

export interface PageHead {
  /** The page's own title; the site name is appended. */
  title: string
  description: string
  /** Absolute URL of the page (canonical and og:url); none for error pages. */
  canonical?: string
  /** Open Graph type: `website`, `article` … (with `canonical`). */
  ogType?: string
  /** Absolute image URL for og:image. */
  ogImage?: string | null
  /** Extra head elements (article times, rel prev/next). */
  extraHead?: Html
  /** Keeps error pages out of search indexes. */
  noindex?: boolean
}

export interface PageFrame extends PageHead {
  /** The stylesheet's versioned URL (routes.ts). */
  stylesheet: string
  body: Html
}

export function renderPage (page: PageFrame): string {
  const fullTitle = page.title === SITE_NAME ? SITE_NAME : `${page.title} · ${SITE_NAME}`
  const canonical = safeUrl(page.canonical)
  const ogImage = safeUrl(page.ogImage)
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${fullTitle}</title>
<meta name="description" content="${page.description}">
${page.noindex ? html`<meta name="robots" content="noindex">` : null}
<link rel="stylesheet" href="${page.stylesheet}">
<link rel="icon" href="data:,">
${canonical
  ? html`<link rel="canonical" href="${canonical}">
<meta property="og:site_name" content="${SITE_NAME}">
<meta property="og:type" content="${page.ogType ?? 'website'}">
<meta property="og:title" content="${page.title}">
<meta property="og:description" content="${page.description}">
<meta property="og:url" content="${canonical}">
${ogImage ? html`<meta property="og:image" content="${ogImage}">` : null}`
  : null}
${page.extraHead ?? null}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="bar">
<nav aria-label="Site">
<a class="home" href="/">${SITE_NAME}</a>
<ul>
<li><a href="/#tools">Tools</a></li>
<li><a href="/blog">Blog</a></li>
<li><a href="/docs">API docs</a></li>
<li><a href="/mcp/docs.md">Agent guide</a></li>
<li><a href="/app#login">Log in</a></li>
<li><a class="button" href="/app#signup">Sign up</a></li>
</ul>
</nav>
</header>
<main id="main" class="wrap">
${page.body}
</main>
<footer>
<p>Self-hosted. <a href="/openapi.json">OpenAPI document</a> · <a href="/mcp/manifest.json">Agent manifest</a> · <a href="/api/health">Health</a></p>
</footer>
</body>
</html>
`.text
}

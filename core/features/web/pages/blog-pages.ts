// `/blog` (featured posts first, then newest, in pages) and `/blog/<slug>`.
// Titles, categories and descriptions are plain text (escaped here); the
// excerpt and the content are the HTML the blog sanitizer stored
// (core/blog/sanitize.ts), the only markup a page takes from data.
import { plainText } from '../../blog/sanitize.ts'
import type { PostListItem, PostView } from '../../blog/blog-service.ts'
import { html, safeUrl, trustedHtml, type Html } from './html.ts'
import type { PageHead } from './layout.ts'

export const POSTS_PER_PAGE = 10

const dateFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' })

/** The date a reader sees: first publication, else creation. */
const shownDate = (post: Pick<PostListItem, 'published_at' | 'created_at'>) => post.published_at ?? post.created_at

const dateHtml = (iso: string) => html`<time datetime="${iso}">${dateFormat.format(new Date(iso))}</time>`

/**
 * An image a page may show: one this server stored (`/api/blog/images/…`).
 * An image on another host would be refused by the CSP (img-src 'self' data:),
 * so it is left out of the page (it stays in og:image, which crawlers fetch).
 */
const ownImage = (url: string | null) => (url !== null && url.startsWith('/api/blog/images/') ? safeUrl(url) : null)

/** An absolute URL for og:image: a stored image's path on this origin, or the post's http(s) URL. */
const absoluteImage = (url: string | null, origin: string | null) => {
  if (!url) return null
  if (url.startsWith('/')) return origin ? safeUrl(`${origin}${url}`) : null
  return safeUrl(url)
}

export function postDescription (post: Pick<PostListItem, 'meta_description' | 'excerpt' | 'title'>): string {
  return post.meta_description || plainText(post.excerpt) || post.title
}

export function blogIndexPage (posts: PostListItem[], page: number, total: number, origin: string | null): { head: PageHead, body: Html } {
  const pages = Math.max(1, Math.ceil(total / POSTS_PER_PAGE))
  const href = (n: number) => (n === 1 ? '/blog' : `/blog?page=${n}`)
  const newer = page > 1 ? href(page - 1) : null
  const older = page < pages ? href(page + 1) : null
  const title = page === 1 ? 'Blog' : `Blog, page ${page} of ${pages}`
  const body = html`<h1>${title}</h1>
${posts.length === 0
  ? html`<p>No posts yet.</p>`
  : html`<ol class="posts">
${posts.map(post => html`<li>
<h2><a href="/blog/${post.slug}">${post.title}</a></h2>
<p class="meta">${post.is_featured ? html`<span class="badge">Featured</span>` : null}${dateHtml(shownDate(post))} · ${post.category}</p>
${post.excerpt ? html`<p>${trustedHtml(post.excerpt)}</p>` : null}
</li>
`)}</ol>`}
${newer || older
  ? html`<nav class="pager" aria-label="Blog pages">${newer ? html`<a href="${newer}" rel="prev">Newer posts</a>` : html`<span></span>`}${older ? html`<a href="${older}" rel="next">Older posts</a>` : null}</nav>`
  : null}`
  const extraHead = html`${newer ? html`<link rel="prev" href="${newer}">` : null}${older ? html`<link rel="next" href="${older}">` : null}`
  return {
    head: { title, description: 'Articles from this server\'s blog: featured posts first, then the newest.', canonical: origin ? `${origin}${href(page)}` : undefined, extraHead },
    body,
  }
}

export function blogPostPage (post: PostView, origin: string | null): { head: PageHead, body: Html } {
  const published = shownDate(post)
  const image = ownImage(post.featured_image)
  const body = html`<article>
<h1>${post.title}</h1>
<p class="meta">${dateHtml(published)} · ${post.category}</p>
${image ? html`<img class="featured" src="${image}" alt="">` : null}
<div class="content">
${trustedHtml(post.content)}
</div>
</article>
<p><a href="/blog">All posts</a></p>`
  const extraHead = html`<meta property="article:published_time" content="${published}">
<meta property="article:modified_time" content="${post.updated_at}">
<meta property="article:section" content="${post.category}">
${post.seo_keywords.map(tag => html`<meta property="article:tag" content="${tag}">
`)}`
  return {
    head: {
      title: post.title,
      description: postDescription(post),
      canonical: origin ? `${origin}/blog/${post.slug}` : undefined,
      ogType: 'article',
      ogImage: absoluteImage(post.featured_image, origin),
      extraHead,
    },
    body,
  }
}

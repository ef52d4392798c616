// A Facebook page's video list, read from the page's logged-out HTML (yt-dlp
// has no playlist for a page's videos). The mobile layout (m.facebook.com) is
// the one captured logged out with its posts' videos in it
// (../shared/fixtures/captures/social/facebook_m_page_posts_logged_out_2021.html):
// each video post has a link `/<page>/videos/<slug>/<id>/` and a player whose
// `data-store` carries `"videoID":"<id>"`. Pure: the run fetches, this reads.

/** The first path segments that are not a page's name (a video, a login, a feature). */
const NOT_A_PAGE = new Set([
  'watch', 'reel', 'reels', 'video.php', 'story.php', 'photo.php', 'photo', 'photos', 'groups', 'events', 'login', 'login.php',
  'checkpoint', 'share', 'sharer', 'sharer.php', 'hashtag', 'search', 'marketplace', 'gaming', 'help', 'policies', 'privacy',
  'settings', 'notifications', 'messages', 'friends', 'stories', 'permalink.php', 'l.php', 'dialog', 'plugins', 'ads',
])

export type PageWall = 'login' | 'checkpoint'

export interface PageVideoList {
  /** Video links, absolute on the fetched page's origin, in page order, each video once. */
  videos: string[]
  /** What stood in the page's place, when nothing was listed. */
  wall: PageWall | null
}

/**
 * The page to read for a link that names a page (`facebook.com/NASA`,
 * `…/NASA/videos`, `…/profile.php?id=…`): the same path on the mobile host,
 * keeping scheme and port. Null for a link of one video, a reel, a group, fb.watch ….
 */
export function facebookPageListUrl (link: string): string | null {
  let url: URL
  try { url = new URL(link) } catch { return null }
  if (!/^https?:$/.test(url.protocol)) return null
  if (!/(^|\.)facebook\.com$/i.test(url.hostname)) return null
  const first = url.pathname.split('/').filter(Boolean)[0]
  if (!first) return null
  if (first === 'profile.php') {
    const id = url.searchParams.get('id')
    if (!id || !/^\d+$/.test(id)) return null
    url.search = `?id=${id}`
  } else {
    if (NOT_A_PAGE.has(first.toLowerCase())) return null
    // A video of the page (…/videos/<id>) is one video, not the list.
    if (/\/videos\/(?:[^/]+\/)?\d{6,}/.test(url.pathname)) return null
    url.search = ''
  }
  url.hostname = 'm.facebook.com'
  url.hash = ''
  return url.toString()
}

/** The entities and escapes the markup wraps its links and JSON in. */
function unescapeMarkup (html: string): string {
  return html
    .replace(/&quot;/g, '"')
    .replace(/&#123;/g, '{')
    .replace(/&#125;/g, '}')
    .replace(/&#x2F;|&#47;/gi, '/')
    .replace(/&amp;/g, '&')
    .replace(/\\\//g, '/')
}

const VIDEO_PATHS: Array<{ pattern: RegExp, link: (m: RegExpExecArray) => string }> = [
  // /<page>/videos/<slug>/<id>/ or /<page>/videos/<id>/
  { pattern: /^\/([^/?#]+)\/videos\/(?:[^/?#]+\/)?(\d{6,})\/?$/, link: m => `/${m[1]}/videos/${m[2]}/` },
  { pattern: /^\/(?:watch\/?|video\.php)$/, link: () => '' },
  { pattern: /^\/reel\/(\d{6,})\/?$/, link: m => `/reel/${m[1]}/` },
]

function videoFromHref (href: string, origin: string): { id: string, url: string } | null {
  let url: URL
  try { url = new URL(href, origin) } catch { return null }
  if (!/(^|\.)facebook\.com$/i.test(url.hostname)) return null
  for (const { pattern, link } of VIDEO_PATHS) {
    const m = pattern.exec(url.pathname)
    if (!m) continue
    const path = link(m)
    if (path === '') {
      const v = url.searchParams.get('v')
      return v && /^\d{6,}$/.test(v) ? { id: v, url: `${origin}/watch/?v=${v}` } : null
    }
    return { id: /(\d{6,})\/$/.exec(path)![1]!, url: `${origin}${path}` }
  }
  return null
}

function wallOf (html: string, pageUrl: string): PageWall | null {
  let path = ''
  try { path = new URL(pageUrl).pathname } catch {}
  if (/^\/checkpoint(\/|$)/.test(path) || /<form[^>]+action="[^"]*\/checkpoint\//i.test(html)) return 'checkpoint'
  if (/^\/login(\.php|\/|$)/.test(path) || /id="login_form"|<form[^>]+action="[^"]*(\/login\/|login\.php)/i.test(html)) return 'login'
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.toLowerCase() ?? ''
  if (/\blog ?in\b|\blog into\b/.test(title)) return 'login'
  return null
}

/**
 * The videos a page's HTML links to: `/<page>/videos/[<slug>/]<id>/`,
 * `/watch/?v=<id>`, `/video.php?v=<id>`, `/reel/<id>`, and players' `videoID`
 * (linked as `/watch/?v=<id>` when no link names the id). Relative links are
 * read against `pageUrl` (the URL fetched, after redirects), so the list is on
 * the host that served it.
 */
export function facebookPageVideosFromHtml (html: string, options: { pageUrl: string }): PageVideoList {
  let origin: string
  try { origin = new URL(options.pageUrl).origin } catch { return { videos: [], wall: null } }
  const text = unescapeMarkup(html)
  const byId = new Map<string, { order: number, url: string, fromLink: boolean }>()
  let order = 0
  const add = (id: string, url: string, fromLink: boolean) => {
    const known = byId.get(id)
    if (!known) byId.set(id, { order: order++, url, fromLink })
    else if (fromLink && !known.fromLink) byId.set(id, { order: known.order, url, fromLink })
  }
  for (const m of text.matchAll(/href="([^"]{1,2000})"/g)) {
    const video = videoFromHref(m[1]!, origin)
    if (video) add(video.id, video.url, true)
  }
  for (const m of text.matchAll(/"?videoID"?\s*:\s*"?(\d{6,})/g)) add(m[1]!, `${origin}/watch/?v=${m[1]}`, false)
  const videos = [...byId.values()].sort((a, b) => a.order - b.order).map(v => v.url)
  return { videos, wall: videos.length ? null : wallOf(html, options.pageUrl) }
}

// Links to a site's social-media profiles, recognised by host. Share buttons
// ("sharer.php", "/intent/tweet", "share?url=") point at the platform too but say
// nothing about who owns the page, so they are left out.
import { load, type CheerioAPI } from 'cheerio'

export type SocialPlatform =
  | 'facebook' | 'instagram' | 'x' | 'linkedin' | 'youtube' | 'tiktok' | 'pinterest' | 'github'
  | 'threads' | 'bluesky' | 'telegram' | 'whatsapp' | 'snapchat' | 'reddit' | 'discord' | 'vimeo'
  | 'twitch' | 'tumblr' | 'medium' | 'soundcloud'

export interface SocialLink {
  platform: SocialPlatform
  /** Normalised: https, no www./m. prefix, no fragment, no tracking parameters, no trailing slash. */
  url: string
  /** The host of `url` (twitter.com and x.com are both platform 'x'; the host tells them apart). */
  host: string
}

// Registrable host → platform. Sub-domains match too (de-de.facebook.com, uk.linkedin.com).
const PLATFORM_BY_HOST: ReadonlyArray<[string, SocialPlatform]> = [
  ['facebook.com', 'facebook'], ['fb.com', 'facebook'], ['fb.me', 'facebook'],
  ['instagram.com', 'instagram'], ['instagr.am', 'instagram'],
  ['x.com', 'x'], ['twitter.com', 'x'],
  ['linkedin.com', 'linkedin'], ['lnkd.in', 'linkedin'],
  ['youtube.com', 'youtube'], ['youtu.be', 'youtube'],
  ['tiktok.com', 'tiktok'],
  ['pinterest.com', 'pinterest'], ['pin.it', 'pinterest'],
  ['github.com', 'github'],
  ['threads.net', 'threads'], ['threads.com', 'threads'],
  ['bsky.app', 'bluesky'],
  ['t.me', 'telegram'], ['telegram.me', 'telegram'],
  ['wa.me', 'whatsapp'], ['whatsapp.com', 'whatsapp'],
  ['snapchat.com', 'snapchat'],
  ['reddit.com', 'reddit'],
  ['discord.gg', 'discord'], ['discord.com', 'discord'],
  ['vimeo.com', 'vimeo'],
  ['twitch.tv', 'twitch'],
  ['tumblr.com', 'tumblr'],
  ['medium.com', 'medium'],
  ['soundcloud.com', 'soundcloud'],
]

// Pinterest runs country domains (pinterest.co.uk, pinterest.de).
const PINTEREST_COUNTRY_HOST_RE = /^(?:[a-z]{2}\.)?pinterest\.(?:[a-z]{2}|co\.[a-z]{2}|com\.[a-z]{2})$/

// Share, intent and widget endpoints: they act on the page, they are not profiles.
const SHARE_PATH_RE = /^\/(?:sharer(?:\.php|\/)|share(?:\.php|\/|$)|sharing\/|shareArticle|cws\/share|intent\/|dialog\/|plugins\/|tr\/?$|pin\/create|submit\/?$|send\/?$|home\?status=)/i

// Paths that are the platform's own pages rather than an account (login walls, legal pages).
const NON_PROFILE_PATH_RE = /^\/(?:login|signup|legal|privacy|policies|policy|terms|help|about\/?$|settings|embed\/|oauth|t\/terms|hashtag\/|search|explore)/i

// Query parameters that track the click or tune the player; none of them identifies the account.
const TRACKING_PARAM_RE = /^(?:utm_.*|fbclid|gclid|igshid|igsh|ref|ref_src|ref_url|si|feature|hl|trk|mibextid|_rdr|s|autoplay|src)$/i

function platformOf (host: string): SocialPlatform | null {
  for (const [known, platform] of PLATFORM_BY_HOST) {
    if (host === known || host.endsWith(`.${known}`)) return platform
  }
  return PINTEREST_COUNTRY_HOST_RE.test(host) ? 'pinterest' : null
}

function isShareLink (platform: SocialPlatform, url: URL): boolean {
  if (SHARE_PATH_RE.test(url.pathname)) return true
  // wa.me/?text=… and api.whatsapp.com/send?text=… without a number share the page.
  if (platform === 'whatsapp' && !/\d{6,}/.test(url.pathname + (url.searchParams.get('phone') ?? ''))) return true
  if (platform === 'telegram' && url.pathname.startsWith('/share')) return true
  return false
}

/** The normalised form of a social profile URL, or null when it is not a profile link. */
export function normaliseSocialUrl (href: string, pageUrl: string): SocialLink | null {
  let url: URL
  try { url = new URL(href.trim(), pageUrl) } catch { return null }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  const host = url.hostname.toLowerCase().replace(/^(?:www|m|mobile|web)\./, '')
  const platform = platformOf(host)
  if (platform === null) return null

  // twitter.com/intent/follow?screen_name=acme names the account: keep it as a profile.
  if (platform === 'x' && /^\/intent\/(?:follow|user)/i.test(url.pathname)) {
    const screenName = url.searchParams.get('screen_name')
    if (!screenName) return null
    url = new URL(`https://${host}/${screenName}`)
  }
  if (isShareLink(platform, url)) return null
  if (NON_PROFILE_PATH_RE.test(url.pathname)) return null

  for (const name of [...url.searchParams.keys()]) {
    if (TRACKING_PARAM_RE.test(name)) url.searchParams.delete(name)
  }
  // wa.me/<number>?text=… carries a prefilled message, not part of the contact.
  if (platform === 'whatsapp') url.searchParams.delete('text')
  const path = url.pathname.replace(/\/+$/, '')
  // A bare platform home page ("https://facebook.com/") identifies no account.
  if (path === '' && url.search === '') return null
  return { platform, url: `https://${host}${path}${url.search}`, host }
}

/**
 * Social-media profile links on the page (anchors, <link rel="me">, and schema.org
 * JSON-LD `sameAs`), resolved against pageUrl, normalised and de-duplicated by URL
 * in document order.
 */
export function findSocialLinks (html: string, pageUrl: string): SocialLink[] {
  return findSocialLinksInDocument(load(html), pageUrl)
}

/** findSocialLinks over a page already parsed (pageContacts parses once for all its scanners). */
export function findSocialLinksInDocument ($: CheerioAPI, pageUrl: string): SocialLink[] {
  const hrefs: string[] = []
  $('a[href], link[rel~="me"][href], area[href]').each((_, element) => { hrefs.push($(element).attr('href') ?? '') })
  $('script[type="application/ld+json"]').each((_, element) => {
    try {
      collectSameAs(JSON.parse($(element).text()), hrefs)
    } catch { /* malformed JSON-LD is common and not ours to fix */ }
  })

  const seen = new Set<string>()
  const links: SocialLink[] = []
  for (const href of hrefs) {
    const link = normaliseSocialUrl(href, pageUrl)
    if (link === null) continue
    const key = link.url.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    links.push(link)
  }
  return links
}

function collectSameAs (node: unknown, into: string[], depth = 0): void {
  if (depth > 8 || node === null || typeof node !== 'object') return
  if (Array.isArray(node)) {
    for (const item of node) collectSameAs(item, into, depth + 1)
    return
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === 'sameAs') {
      for (const item of Array.isArray(value) ? value : [value]) if (typeof item === 'string') into.push(item)
    } else {
      collectSameAs(value, into, depth + 1)
    }
  }
}

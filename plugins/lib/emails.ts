// E-mail addresses on a web page: mailto links, Cloudflare-protected addresses,
// plain text and attributes, and written-out forms ("info[at]acme(dot)de").
// Pure: HTML in, addresses out.
import { load, type CheerioAPI } from 'cheerio'
import { headAndTail, visibleText } from './visible-text.ts'

export type EmailSource = 'mailto' | 'text' | 'cfemail' | 'obfuscated'

export interface FoundEmail {
  email: string
  source: EmailSource
}

// ---------------------------------------------------------------- validation

const MAX_EMAIL_LENGTH = 254
const MAX_LOCAL_LENGTH = 64

// Dot-atom local part (RFC 5322 without quoted strings, which no site publishes).
const LOCAL_PART_RE = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/i
const DOMAIN_LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
const TLD_RE = /^(?:[a-z]{2,24}|xn--[a-z0-9-]{1,59})$/

// "logo@2x.png", "icon@3x.webp", "bundle@1.2.min.js": asset names that look like addresses.
const ASSET_EXTENSIONS = new Set([
  'png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'bmp', 'ico', 'tif', 'tiff', 'avif', 'heic',
  'css', 'js', 'mjs', 'map', 'json', 'woff', 'woff2', 'ttf', 'eot', 'otf', 'mp4', 'webm', 'mp3', 'wav',
])

const TRAILING_PUNCTUATION_RE = /[.,;:!?'"`)\]}>»”’*-]+$/
const LEADING_PUNCTUATION_RE = /^[.,;:!?'"`([{<«“‘*-]+/

/**
 * The address in canonical form (trimmed, domain lower-cased), or null when it is
 * not a plausible published address.
 */
export function normaliseEmail (raw: string): string | null {
  const trimmed = raw.trim().replace(LEADING_PUNCTUATION_RE, '').replace(TRAILING_PUNCTUATION_RE, '')
  const at = trimmed.lastIndexOf('@')
  if (at <= 0) return null
  const local = trimmed.slice(0, at)
  const domain = trimmed.slice(at + 1).toLowerCase()
  if (local.length > MAX_LOCAL_LENGTH || trimmed.length > MAX_EMAIL_LENGTH) return null
  if (!LOCAL_PART_RE.test(local)) return null
  // Hash-like local parts ("3f9a…@sentry.io" in error-tracker DSNs) are not mailboxes.
  if (/^[0-9a-f]{24,}$/i.test(local)) return null
  const labels = domain.split('.')
  if (labels.length < 2) return null // "user@localhost", "user@example"
  if (!labels.every(label => DOMAIN_LABEL_RE.test(label))) return null
  const tld = labels[labels.length - 1]
  if (!TLD_RE.test(tld) || ASSET_EXTENSIONS.has(tld)) return null
  return `${local}@${domain}`
}

// ---------------------------------------------------------------- role vs personal

/** Local parts that name a function, not a person. */
export const ROLE_LOCAL_PARTS: ReadonlySet<string> = new Set([
  'info', 'information', 'contact', 'contacts', 'contactus', 'sales', 'support', 'help', 'helpdesk',
  'admin', 'administrator', 'hello', 'hi', 'hey', 'office', 'team', 'press', 'media', 'pr', 'news',
  'newsletter', 'jobs', 'job', 'careers', 'career', 'hr', 'recruiting', 'recruitment', 'talent',
  'billing', 'accounts', 'accounting', 'finance', 'invoice', 'invoices', 'payments', 'privacy',
  'legal', 'compliance', 'gdpr', 'dpo', 'abuse', 'security', 'postmaster', 'hostmaster',
  'webmaster', 'noreply', 'donotreply', 'mailerdaemon', 'notifications', 'alerts', 'mail', 'email',
  'enquiries', 'enquiry', 'inquiries', 'inquiry', 'marketing', 'service', 'services',
  'customerservice', 'customercare', 'customersupport', 'care', 'feedback', 'booking', 'bookings',
  'reservations', 'reception', 'frontdesk', 'orders', 'order', 'shop', 'store', 'events',
  'partners', 'partnerships', 'general', 'root', 'it', 'tech', 'developers', 'dev', 'investors',
  'ir', 'editor', 'editors', 'editorial', 'studio', 'ops', 'operations', 'purchasing',
  'procurement', 'wholesale', 'returns', 'shipping', 'membership', 'members', 'donations',
  'volunteer', 'admissions', 'registrar',
  // Common non-English role boxes.
  'kontakt', 'anfrage', 'anfragen', 'buero', 'bestellung', 'verwaltung', 'sekretariat', 'vertrieb',
  'empfang', 'accueil', 'commercial', 'ventas', 'contacto', 'informacion', 'contatto', 'vendas',
])

/**
 * 'role' for shared mailboxes (info@, sales-uk@, no-reply@, support2@), otherwise 'personal'.
 * Looks at the local part only: its whole form without separators, then its first segment.
 */
export function classifyEmail (email: string): 'role' | 'personal' {
  const at = email.lastIndexOf('@')
  const local = (at === -1 ? email : email.slice(0, at)).toLowerCase().replace(/\+.*$/, '')
  const withoutDigits = local.replace(/\d+$/, '')
  const joined = withoutDigits.replace(/[._-]/g, '')
  if (ROLE_LOCAL_PARTS.has(joined)) return 'role'
  const first = withoutDigits.split(/[._-]/)[0]
  return ROLE_LOCAL_PARTS.has(first) ? 'role' : 'personal'
}

// ---------------------------------------------------------------- sources

/** Decodes a Cloudflare "email protection" hex string: the first byte is the XOR key. */
export function decodeCloudflareEmail (hex: string): string | null {
  if (!/^(?:[0-9a-f]{2}){2,}$/i.test(hex)) return null
  const key = parseInt(hex.slice(0, 2), 16)
  const bytes = Buffer.alloc(hex.length / 2 - 1)
  for (let i = 2; i < hex.length; i += 2) bytes[i / 2 - 1] = parseInt(hex.slice(i, i + 2), 16) ^ key
  return bytes.toString('utf8')
}

/** Percent-decoding that leaves malformed escapes as they are instead of throwing. */
function percentDecode (value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  }
}

/** Addresses of a mailto: href: percent-decoded, query (?subject=…) dropped, several recipients split. */
export function mailtoAddresses (href: string): string[] {
  const match = /^\s*mailto:(?:\/\/)?([^?#]*)/i.exec(href)
  if (!match) return []
  return percentDecode(match[1]).split(/[,;]/).map(part => part.trim()).filter(Boolean)
}

const CLOUDFLARE_PATH = '/cdn-cgi/l/email-protection'

/**
 * Most characters of visible text the text matchers read (head and tail of a longer
 * text): the regular expressions are linear, but a multi-megabyte wall of address-like
 * text is not a contact page, and this bounds the work one page can cause.
 */
export const EMAIL_SCAN_CHARS = 1024 * 1024

// A plain address in running text. The local part is the common subset of RFC 5322
// (letters, digits, . _ % + -) because quotes and slashes in prose are punctuation.
const PLAIN_EMAIL_RE = /(?<![a-z0-9._%+-])[a-z0-9._%+-]{1,64}@(?:[a-z0-9-]{1,63}\.)+[a-z0-9-]{2,63}(?![a-z0-9-])/gi

// Written-out forms (all patterns are compiled case-insensitive). Bracketed separators ("[at]", "(dot)", "{at}", "<at>", "[@]", "(.)")
// are unambiguous; bare words (" at ", " dot ") occur in prose, so they are accepted only
// under the extra checks in acceptsBareForm().
const BRACKETED_AT = String.raw`\s*(?:\[\s*(?:at|@)\s*\]|\(\s*(?:at|@)\s*\)|\{\s*(?:at|@)\s*\}|<\s*(?:at|@)\s*>)\s*`
const BARE_AT = String.raw`\s+at\s+`
const BRACKETED_DOT = String.raw`\s*(?:\[\s*(?:dot|punkt|point|\.)\s*\]|\(\s*(?:dot|punkt|point|\.)\s*\)|\{\s*(?:dot|punkt|point|\.)\s*\}|<\s*(?:dot|punkt|point|\.)\s*>)\s*`
const BARE_DOT = String.raw`\s+dot\s+`
const ANY_DOT = `(?:${BRACKETED_DOT}|${BARE_DOT}|\\.)`
const LOCAL_WORD = '[a-z0-9_%+-]{1,64}'
const DOMAIN_LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const OBFUSCATED_EMAIL_RE = new RegExp(
  `(?<![a-z0-9._%+-])(${LOCAL_WORD}(?:${ANY_DOT}${LOCAL_WORD}){0,4})(${BRACKETED_AT}|${BARE_AT})(${DOMAIN_LABEL}(?:${ANY_DOT}${DOMAIN_LABEL}){1,5})(?![a-z0-9-])`,
  'gi',
)
const BRACKETED_DOT_RE = new RegExp(BRACKETED_DOT, 'gi')
const BARE_DOT_RE = new RegExp(BARE_DOT, 'gi')

// Top-level domains an address written with a bare " at " must end in, so that prose
// such as "arrive at gate dot five" is not read as an address.
const COMMON_TLDS = new Set([
  'com', 'org', 'net', 'edu', 'gov', 'mil', 'int', 'info', 'biz', 'io', 'co', 'me', 'ai', 'app', 'dev',
  'uk', 'de', 'fr', 'es', 'it', 'nl', 'be', 'ch', 'at', 'se', 'no', 'dk', 'fi', 'pl', 'cz', 'pt', 'ie',
  'us', 'ca', 'au', 'nz', 'in', 'jp', 'cn', 'br', 'mx', 'ru', 'za', 'eu', 'email', 'online', 'tech',
])

// Words that precede " at " in prose ("meet us at", "look at", "available at").
const PROSE_WORDS_BEFORE_AT = new Set([
  'us', 'me', 'you', 'him', 'her', 'them', 'it', 'we', 'they', 'i', 'he', 'she', 'one', 'is', 'are',
  'was', 'were', 'be', 'been', 'am', 'look', 'looking', 'looked', 'arrive', 'arrived', 'arriving',
  'stay', 'staying', 'meet', 'meeting', 'see', 'located', 'available', 'based', 'open', 'here',
  'there', 'this', 'that', 'and', 'or', 'but', 'the', 'a', 'an', 'of', 'to', 'in', 'on', 'work',
  'works', 'working', 'live', 'lives', 'study', 'studied', 'aim', 'aimed', 'point', 'pointed',
  'up', 'down', 'out', 'off', 'back', 'home', 'now', 'then', 'held', 'starts', 'start', 'begins',
  'ends', 'closes', 'opens', 'only', 'not', 'best', 'least', 'most', 'all', 'dot',
])

function acceptsBareForm (local: string, atSeparator: string, rawDomain: string, domain: string): boolean {
  const bareAt = !/[[({<]/.test(atSeparator)
  if (!bareAt) return true
  // "shop at target.com", "tickets at eventbrite.com": a bare " at " before a plainly written
  // domain is a place, not an address. Someone hiding an address writes the dot out too.
  if (!/\sdot\s|[[({<]/i.test(rawDomain)) return false
  const lastLocalWord = local.split(/[^a-z0-9_%+-]+/i).pop()!.toLowerCase()
  if (PROSE_WORDS_BEFORE_AT.has(lastLocalWord)) return false
  const tld = domain.split('.').pop()!
  return COMMON_TLDS.has(tld)
}

/** Addresses written out with [at]/(dot)-style separators, rewritten to plain form. */
export function deobfuscateEmails (text: string): string[] {
  const found: string[] = []
  for (const match of text.matchAll(OBFUSCATED_EMAIL_RE)) {
    const [, rawLocal, atSeparator, rawDomain] = match
    const undot = (value: string) => value.replace(BRACKETED_DOT_RE, '.').replace(BARE_DOT_RE, '.')
    const local = undot(rawLocal)
    const domain = undot(rawDomain).toLowerCase()
    if (!acceptsBareForm(rawLocal, atSeparator, rawDomain, domain)) continue
    found.push(`${local}@${domain}`)
  }
  return found
}

/** Plain addresses in a piece of text. */
function plainEmails (text: string): string[] {
  return [...text.matchAll(PLAIN_EMAIL_RE)].map(match => match[0])
}

// Attributes that hold example input or resource locations rather than published addresses.
const SKIPPED_ATTRIBUTES = new Set(['href', 'src', 'srcset', 'data-src', 'data-srcset', 'action', 'style', 'placeholder', 'data-cfemail', 'class', 'id'])

function collectCandidates ($: CheerioAPI, pageUrl: string, visible: string): Array<[string, EmailSource]> {
  const candidates: Array<[string, EmailSource]> = []

  // 1. mailto: links are the most deliberate publication of an address.
  $('a[href], area[href], link[href]').each((_, element) => {
    const href = $(element).attr('href') ?? ''
    for (const address of mailtoAddresses(href)) candidates.push([address, 'mailto'])
  })

  // 2. Cloudflare email protection: <span data-cfemail="…"> and /cdn-cgi/l/email-protection#… links.
  $('[data-cfemail]').each((_, element) => {
    const decoded = decodeCloudflareEmail($(element).attr('data-cfemail') ?? '')
    if (decoded) candidates.push([decoded, 'cfemail'])
  })
  $('a[href*="email-protection"]').each((_, element) => {
    const href = $(element).attr('href') ?? ''
    let url: URL
    try { url = new URL(href, pageUrl) } catch { return }
    if (!url.pathname.endsWith(CLOUDFLARE_PATH) || url.hash.length < 2) return
    const decoded = decodeCloudflareEmail(url.hash.slice(1))
    if (decoded) candidates.push([decoded, 'cfemail'])
  })

  // 3. Visible text (entities are decoded by the parser: &#64; &#x40; &commat;) and attributes.
  const text = headAndTail(visible, EMAIL_SCAN_CHARS)
  for (const address of plainEmails(text)) candidates.push([address, 'text'])
  $('*').each((_, element) => {
    const attributes = $(element).attr() ?? {}
    for (const [name, value] of Object.entries(attributes)) {
      if (SKIPPED_ATTRIBUTES.has(name) || !value.includes('@')) continue
      for (const address of plainEmails(value)) candidates.push([address, 'text'])
    }
  })
  // JSON-LD ("email": "info@acme.com") is structured data meant for machines: trusted as text.
  $('script[type="application/ld+json"]').each((_, element) => {
    const json = $(element).text().replace(/\\u0040/gi, '@')
    for (const address of plainEmails(json)) candidates.push([address.replace(/^mailto:/i, ''), 'text'])
  })

  // 4. Written-out forms in visible text and in titles ("info[at]acme(dot)de").
  for (const address of deobfuscateEmails(text)) candidates.push([address, 'obfuscated'])
  $('[title], [aria-label]').each((_, element) => {
    for (const name of ['title', 'aria-label']) {
      const value = $(element).attr(name)
      if (value) for (const address of deobfuscateEmails(value)) candidates.push([address, 'obfuscated'])
    }
  })
  return candidates
}

/**
 * Every plausible e-mail address on the page, de-duplicated (case-insensitively), each
 * with where it was found. Order: mailto links, Cloudflare-decoded, text and attributes,
 * written-out forms; within each, document order.
 */
export function findEmails (html: string, pageUrl: string): FoundEmail[] {
  return findEmailsInDocument(load(html), pageUrl)
}

/** findEmails over a page already parsed (pageContacts parses once for all its scanners), and its visibleText if already read. */
export function findEmailsInDocument ($: CheerioAPI, pageUrl: string, visible: string = visibleText($)): FoundEmail[] {
  const seen = new Set<string>()
  const found: FoundEmail[] = []
  for (const [raw, source] of collectCandidates($, pageUrl, visible)) {
    const email = normaliseEmail(raw)
    if (email === null) continue
    const key = email.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    found.push({ email, source })
  }
  return found
}

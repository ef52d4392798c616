// Pure: what one crawled page contributes (scanned by the library's pageScanner(ctx.extract).contacts in the worker pool), and how pages add up to the
// Website e-mail result of the spec. No I/O here; run.ts feeds it pages.
import type { ContactScanOptions, PageContacts } from '../lib/contacts.ts'
import { siteHost, websiteUrl } from '../lib/domains.ts'

// A type alias (not an interface) so a row is assignable to the contract's Record<string, unknown>.
export type SiteFindings = {
  website: string
  domain: string
  pages_scanned: number
  emails: string[]
  phones: string[]
  socials: Array<{ platform: string, url: string, host: string }>
  results: Array<{ email: string, type: 'personal' | 'role', domain: string, source_page: string }>
  count: number
}

export interface FindingsOptions { includePhones: boolean, includeSocials: boolean, defaultCountry?: string }

/** Pages whose path suggests contact details: crawled first. */
const PRIORITY_PATH = /(contact|kontakt|contacto|contatti|about|ueber-uns|uber-uns|team|staff|people|impressum|imprint|legal|mentions|support|help|company|office|locations?)/i
export const isPriorityPage = (url: string) => {
  try { return PRIORITY_PATH.test(new URL(url).pathname) } catch { return false }
}

export function sameSite (url: string, host: string): boolean {
  try {
    const u = new URL(url)
    return (u.protocol === 'http:' || u.protocol === 'https:') && siteHost(u.hostname) === siteHost(host)
  } catch { return false }
}

/** A bare host or URL as given → the URL to start from. */
export function startUrlOf (website: string): URL {
  const url = websiteUrl(website)
  if (!url) throw new Error('not a website address')
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('only http and https sites can be crawled')
  url.hash = ''
  return url
}

/**
 * The most e-mail addresses, phone numbers and social links one site's row keeps, each.
 * A real site's contact details are a handful; a page of tens of thousands of address-like
 * strings is junk or an attack, and one row of them would be megabytes validated, serialised
 * and written on the API thread (scripts/bench/hostile.ts). Past the cap the rest is counted
 * and the run warns.
 */
export const MAX_CONTACTS_PER_SITE = 500

/** Accumulates findings across pages, de-duplicated, in discovery order, up to MAX_CONTACTS_PER_SITE of each kind. */
export class SiteFindingsBuilder {
  private pages = 0
  /** Findings left out past the cap (one seen on two pages counts twice). */
  private overCap = 0
  private readonly emails = new Map<string, { type: 'personal' | 'role', source: string }>()
  private readonly phones = new Set<string>()
  private readonly socials = new Map<string, { platform: string, url: string, host: string }>()

  constructor (private readonly website: string, private readonly domain: string, private readonly options: FindingsOptions) {}

  /** What one page held (pageScanner(ctx.extract).contacts, or the library's pageContacts called directly). */
  addScanned (found: Pick<PageContacts, 'emails' | 'phones' | 'socials'> & { leftOut?: number }, pageUrl: string): void {
    this.pages++
    this.overCap += found.leftOut ?? 0
    for (const { email, type } of found.emails) {
      if (this.emails.has(email)) continue
      if (this.emails.size >= MAX_CONTACTS_PER_SITE) { this.overCap++; continue }
      this.emails.set(email, { type, source: pageUrl })
    }
    if (this.options.includePhones) {
      for (const p of found.phones) {
        if (this.phones.has(p)) continue
        if (this.phones.size >= MAX_CONTACTS_PER_SITE) { this.overCap++; continue }
        this.phones.add(p)
      }
    }
    if (this.options.includeSocials) {
      for (const s of found.socials) {
        if (this.socials.has(s.url)) continue
        if (this.socials.size >= MAX_CONTACTS_PER_SITE) { this.overCap++; continue }
        this.socials.set(s.url, { platform: s.platform, url: s.url, host: s.host })
      }
    }
  }

  /** How many findings were left out past MAX_CONTACTS_PER_SITE. */
  get leftOut (): number { return this.overCap }

  /** The scan a page needs for this run's options (pageScanner contacts options). */
  get scanOptions (): ContactScanOptions {
    return { phones: this.options.includePhones, socials: this.options.includeSocials, defaultCountry: this.options.defaultCountry, maxEach: MAX_CONTACTS_PER_SITE }
  }

  get pagesScanned (): number { return this.pages }

  build (): SiteFindings {
    const results = [...this.emails].map(([email, v]) => ({ email, type: v.type, domain: email.split('@')[1]!, source_page: v.source }))
    return {
      website: this.website,
      domain: this.domain,
      pages_scanned: this.pages,
      emails: results.map(r => r.email),
      phones: [...this.phones],
      socials: [...this.socials.values()],
      results,
      count: results.length,
    }
  }
}

/** <loc> entries of a sitemap: the plugin library's reader. */
export { sitemapLocations } from '../lib/sitemaps.ts'

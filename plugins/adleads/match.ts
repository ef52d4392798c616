// Pure pieces of the lead finder: which ads belong to a business, and what a
// nested fbads / gads answer means for its row.

type Json = Record<string, unknown>

import { namesMatch } from '../lib/business-names.ts'
import { siteDomain } from '../lib/domains.ts'
export { namesMatch } from '../lib/business-names.ts'

/** example.com from a listing's website, or null (the plugin library's reader). */

// Listing sites are not the business's own website: their domain says nothing about its ads.
const NOT_OWN_SITE = /(^|\.)(facebook\.com|instagram\.com|google\.com|goo\.gl|yelp\.com|tripadvisor\.[a-z.]+|linktr\.ee|wixsite\.com|business\.site|square\.site|linkedin\.com|twitter\.com|x\.com|tiktok\.com|youtube\.com)$/

export const ownDomain = (website: unknown): string | null => {
  const d = siteDomain(website)
  return d && !NOT_OWN_SITE.test(d) ? d : null
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [])

export interface MetaVerdict { count: number, page_ids: string[], page_name: string | null }

/**
 * Of an Ad Library keyword search's rows, the ads of this business: the page
 * is named like it, or the ad links to its own domain.
 */
export function metaAdsOf (rows: Json[], name: string, domain: string | null): MetaVerdict {
  const mine = rows.filter(r => {
    const page = typeof r.page_name === 'string' ? r.page_name : ''
    if (page && namesMatch(page, name)) return true
    if (!domain) return false
    const links = [...strings(r.link_captions), ...strings(r.link_descriptions), ...strings(r.link_titles)].map(s => s.toLowerCase())
    return links.some(l => l === domain || l.endsWith(`.${domain}`) || l.includes(`//${domain}`) || l.includes(`www.${domain}`) || l.startsWith(`${domain}/`))
  })
  const pageIds = [...new Set(mine.map(r => r.page_id).filter((id): id is string => typeof id === 'string'))]
  const pageName = mine.map(r => r.page_name).find((n): n is string => typeof n === 'string') ?? null
  return { count: mine.length, page_ids: pageIds, page_name: pageName }
}

export interface GoogleVerdict { running: boolean, count: number | null, advertiser_id: string | null, advertiser_name: string | null, last_shown: string | null }

/** A gads answer for one business: the first advertiser found, or none (not running). */
export function googleVerdict (rows: Json[]): GoogleVerdict {
  const found = rows.filter(r => r.found === true)
  const best = found.find(r => r.running_now === true) ?? found[0]
  if (!best) return { running: false, count: 0, advertiser_id: null, advertiser_name: null, last_shown: null }
  return {
    running: best.running_now === true,
    count: typeof best.ad_count === 'number' ? best.ad_count : null,
    advertiser_id: typeof best.advertiser_id === 'string' ? best.advertiser_id : null,
    advertiser_name: typeof best.advertiser_name === 'string' ? best.advertiser_name : null,
    last_shown: typeof best.last_shown === 'string' ? best.last_shown : null,
  }
}

// E-mails (typed role/personal), phones, socials and links of one page in one
// pass: webemail's scan, run in the kernel's worker pool through
// page-scanner.ts (`contacts`). Pure, like the scanners it combines.
import { load } from 'cheerio'
import { findEmailsInDocument, classifyEmail, type FoundEmail } from './emails.ts'
import { findPhones, findPhonesInDocument, looksLikeHtml } from './phones.ts'
import { findSocialLinksInDocument, type SocialLink } from './socials.ts'
import { extractLinksFromDocument } from './page.ts'
import { visibleText } from './visible-text.ts'

export interface ContactScanOptions {
  phones?: boolean
  socials?: boolean
  /** Country for phone numbers written without +prefix. */
  defaultCountry?: string
  /**
   * The most e-mails, phones and socials returned, each (default: all). The answer crosses
   * from the worker to the API thread by structured clone: a hostile page's 40,000
   * addresses would cost the API thread tens of milliseconds just to receive.
   */
  maxEach?: number
}

export interface PageContacts {
  emails: Array<FoundEmail & { type: 'personal' | 'role' }>
  phones: string[]
  socials: SocialLink[]
  /** Absolute http(s) links of the page, same-site or not (extractLinks). */
  links: string[]
  /** How many e-mails, phones and socials were dropped past `maxEach`. */
  leftOut: number
}

export function pageContacts (html: string, url: string, options: ContactScanOptions = {}): PageContacts {
  const max = options.maxEach ?? Infinity
  let leftOut = 0
  const capped = <T>(items: T[]): T[] => {
    if (items.length <= max) return items
    leftOut += items.length - max
    return items.slice(0, max)
  }
  // One parse and one visible-text walk for every scanner (each on its own parses the page
  // again: four parses, two walks, about 2.5 times the worker's time per page). They only read it.
  const $ = load(html)
  const visible = visibleText($)
  const emails = capped(findEmailsInDocument($, url, visible)).map(found => ({ ...found, type: classifyEmail(found.email) }))
  const phoneOptions = { defaultCountry: options.defaultCountry }
  // findPhones reads what does not look like HTML as plain text; so does this scan.
  const phones = options.phones ? capped(looksLikeHtml(html) ? findPhonesInDocument($, phoneOptions, visible) : findPhones(html, phoneOptions)) : []
  const socials = options.socials ? capped(findSocialLinksInDocument($, url)) : []
  return { emails, phones, socials, links: extractLinksFromDocument($, url), leftOut }
}

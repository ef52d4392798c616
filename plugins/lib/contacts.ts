// E-mails (typed role/personal), phones, socials and links of one page in one
// pass: webemail's scan, run in the kernel's worker pool through
// page-scanner.ts (`contacts`). Pure, like the scanners it combines.
import { findEmails, classifyEmail, type FoundEmail } from './emails.ts'
import { findPhones } from './phones.ts'
import { findSocialLinks, type SocialLink } from './socials.ts'
import { extractLinks } from './page.ts'

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
  const emails = capped(findEmails(html, url)).map(found => ({ ...found, type: classifyEmail(found.email) }))
  const phones = options.phones ? capped(findPhones(html, { defaultCountry: options.defaultCountry })) : []
  const socials = options.socials ? capped(findSocialLinks(html, url)) : []
  return { emails, phones, socials, links: extractLinks(html, url), leftOut }
}

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
}

export interface PageContacts {
  emails: Array<FoundEmail & { type: 'personal' | 'role' }>
  phones: string[]
  socials: SocialLink[]
  /** Absolute http(s) links of the page, same-site or not (extractLinks). */
  links: string[]
}

export function pageContacts (html: string, url: string, options: ContactScanOptions = {}): PageContacts {
  return {
    emails: findEmails(html, url).map(found => ({ ...found, type: classifyEmail(found.email) })),
    phones: options.phones ? findPhones(html, { defaultCountry: options.defaultCountry }) : [],
    socials: options.socials ? findSocialLinks(html, url) : [],
    links: extractLinks(html, url),
  }
}

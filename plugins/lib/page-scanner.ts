// The page scanners, pooled: what a run calls to read a page (Readability) or
// scan it for e-mails, phones and socials. Each method sends the work to the
// kernel's worker pool through ctx.extract.call, naming the library module that
// does it, so the API thread only moves bytes and the kernel knows no scanner.
//
//   const scan = pageScanner(ctx.extract)
//   await scan.ready()                         // before a timed crawl
//   const found = await scan.contacts(html, url, { phones: true })
//
// A page the pool gives up on rejects with ExtractionError (that page's error);
// a stopped job with its abort reason. Types only are imported here: the DOM
// and phone libraries load in the workers, never with the plugin.
import type { Extraction } from '../../core/tools/contract.ts'
import type { ContactScanOptions, PageContacts } from './contacts.ts'
import type { FoundEmail } from './emails.ts'
import type { PageContent } from './page.ts'
import type { SocialLink } from './socials.ts'

export type { ContactScanOptions, PageContacts, FoundEmail, PageContent, SocialLink }

const PAGE = new URL('./page.ts', import.meta.url)
const CONTACTS = new URL('./contacts.ts', import.meta.url)
const EMAILS = new URL('./emails.ts', import.meta.url)
const PHONES = new URL('./phones.ts', import.meta.url)
const SOCIALS = new URL('./socials.ts', import.meta.url)

export interface PageScanner {
  /** extractPage: metadata, headings, readable text (Readability over linkedom). */
  page (html: string, url: string): Promise<PageContent>
  /** E-mails, phones, socials and links of one page in one trip to the pool. */
  contacts (html: string, url: string, options?: ContactScanOptions): Promise<PageContacts>
  emails (html: string, url: string): Promise<FoundEmail[]>
  phones (htmlOrText: string, options?: { defaultCountry?: string }): Promise<string[]>
  socials (html: string, url: string): Promise<SocialLink[]>
  /** Starts the workers and loads every scanner in them (contacts loads them all). */
  ready (): Promise<void>
}

export function pageScanner (extract: Extraction): PageScanner {
  return {
    page: (html, url) => extract.call<PageContent>(PAGE, 'extractPage', [html, url]),
    contacts: (html, url, options = {}) => extract.call<PageContacts>(CONTACTS, 'pageContacts', [html, url, options]),
    emails: (html, url) => extract.call<FoundEmail[]>(EMAILS, 'findEmails', [html, url]),
    phones: (html, options = {}) => extract.call<string[]>(PHONES, 'findPhones', [html, { defaultCountry: options.defaultCountry }]),
    socials: (html, url) => extract.call<SocialLink[]>(SOCIALS, 'findSocialLinks', [html, url]),
    ready: () => extract.ready([CONTACTS]),
  }
}

// The plugin library's page scanners: pure functions from HTML or text to data.
// Runs call them pooled (page-scanner.ts); tests and scripts call them directly.
// See README.md.
export { findEmails, classifyEmail, normaliseEmail, decodeCloudflareEmail, mailtoAddresses, deobfuscateEmails, ROLE_LOCAL_PARTS } from './emails.ts'
export type { FoundEmail, EmailSource } from './emails.ts'
export { findPhones, telHrefToE164 } from './phones.ts'
export type { FindPhonesOptions } from './phones.ts'
export { findSocialLinks, normaliseSocialUrl } from './socials.ts'
export type { SocialLink, SocialPlatform } from './socials.ts'
export { extractPage, extractLinks, countWords } from './page.ts'
export type { PageContent } from './page.ts'
export { pageContacts } from './contacts.ts'
export type { ContactScanOptions, PageContacts } from './contacts.ts'
export { pageScanner } from './page-scanner.ts'
export type { PageScanner } from './page-scanner.ts'

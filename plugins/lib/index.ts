// Shared extraction helpers for tool plugins: pure functions from HTML or text to data.
// See README.md.
export { findEmails, classifyEmail, normaliseEmail, decodeCloudflareEmail, mailtoAddresses, deobfuscateEmails, ROLE_LOCAL_PARTS } from './emails.ts'
export type { FoundEmail, EmailSource } from './emails.ts'
export { findPhones, telHrefToE164 } from './phones.ts'
export type { FindPhonesOptions } from './phones.ts'
export { findSocialLinks, normaliseSocialUrl } from './socials.ts'
export type { SocialLink, SocialPlatform } from './socials.ts'
export { extractPage, extractLinks, countWords } from './page.ts'
export type { PageContent } from './page.ts'

// Phone numbers on a page or in text, normalised to E.164 with libphonenumber-js.
// The "max" metadata is used because the default "min" set validates by length only,
// which lets ZIP codes, order numbers and dates through as "valid" numbers.
import { load, type CheerioAPI } from 'cheerio'
import {
  findPhoneNumbersInText,
  parsePhoneNumberFromString,
  isSupportedCountry,
  type CountryCode,
} from 'libphonenumber-js/max'
import { headAndTail, visibleText } from './visible-text.ts'

export interface FindPhonesOptions {
  /** ISO 3166-1 alpha-2 country for numbers written without a +country prefix ("US", "GB", "DE"). */
  defaultCountry?: string
  /** Most characters of text the matcher reads (default PHONE_SCAN_CHARS); longer text keeps its head and tail. */
  maxTextChars?: number
}

/**
 * libphonenumber's matcher costs tens of microseconds per character on digit-heavy text
 * (a 1 MiB page of "1 1 1 …" took 12 s), so it reads at most this much visible text.
 * Contact details sit near the top or in the footer, so a longer text keeps both ends.
 */
export const PHONE_SCAN_CHARS = 64 * 1024

const LOOKS_LIKE_HTML_RE = /<\s*(?:html|body|head|div|p|a|span|table|br|li|section|footer|header)\b/i

function countryOption (defaultCountry: string | undefined): CountryCode | undefined {
  const upper = defaultCountry?.trim().toUpperCase()
  if (!upper) return undefined
  // "UK" is what people type; libphonenumber only knows the ISO code "GB".
  const code = upper === 'UK' ? 'GB' : upper
  return isSupportedCountry(code) ? code : undefined
}

/** The E.164 form of a tel:/callto: href, or null when it does not hold a valid number. */
export function telHrefToE164 (href: string, defaultCountry?: string): string | null {
  const match = /^\s*(?:tel|callto|phone):(?:\/\/)?(.*)$/i.exec(href)
  if (!match) return null
  let value = match[1]
  try { value = decodeURIComponent(value) } catch { /* keep the raw form */ }
  // RFC 3966 parameters (";ext=12", ";phone-context=…") are not part of the number.
  value = value.split(/[;?]/)[0]
  const parsed = parsePhoneNumberFromString(value, countryOption(defaultCountry))
  return parsed?.isValid() ? parsed.number : null
}

/**
 * Phone numbers in an HTML page or plain text, as E.164 strings ("+12125550123"),
 * de-duplicated: tel: links first, then numbers found in the visible text. Extensions
 * are dropped (E.164 has none). Candidates that are not valid numbers for their country
 * (dates, ZIP codes, long digit runs) are rejected by libphonenumber's matcher and
 * validator. Without defaultCountry only numbers written with a +prefix are found in text.
 */
export function findPhones (htmlOrText: string, options: FindPhonesOptions = {}): string[] {
  if (looksLikeHtml(htmlOrText)) return findPhonesInDocument(load(htmlOrText), options)
  return [...phonesInText(htmlOrText, countryOption(options.defaultCountry), options, new Set())]
}

/** Whether findPhones reads its input as an HTML page (tel: links, visible text) rather than as plain text. */
export const looksLikeHtml = (htmlOrText: string): boolean => LOOKS_LIKE_HTML_RE.test(htmlOrText)

/** findPhones over an HTML page already parsed (pageContacts parses once for all its scanners), and its visibleText if already read. */
export function findPhonesInDocument ($: CheerioAPI, options: FindPhonesOptions = {}, visible: string = visibleText($)): string[] {
  const defaultCountry = countryOption(options.defaultCountry)
  const found = new Set<string>()
  $('a[href]').each((_, element) => {
    const number = telHrefToE164($(element).attr('href') ?? '', defaultCountry)
    if (number) found.add(number)
  })
  return [...phonesInText(visible, defaultCountry, options, found)]
}

function phonesInText (text: string, defaultCountry: CountryCode | undefined, options: FindPhonesOptions, found: Set<string>): Set<string> {
  const scanned = headAndTail(text, options.maxTextChars ?? PHONE_SCAN_CHARS)
  for (const match of findPhoneNumbersInText(scanned, defaultCountry ? { defaultCountry } : undefined)) {
    if (match.number.isValid()) found.add(match.number.number)
  }
  return found
}

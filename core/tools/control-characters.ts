// Control characters in a tool's params, refused before anything is charged.
//
// No param of any tool has a use for a NUL, another C0 control, DEL or a C1
// control: they only reach a URL parser, a shell-free argv or an upstream query
// to fail there, after the call was charged. Tab, line feed and carriage return
// are text in a search phrase or a prompt, but never part of an address: a URL
// parser silently drops them (`https://a.example/\nb` reads as `/b`), so a param
// that holds one (named `url`, `website`, `domain`, their plurals, or `…_url`)
// refuses them too. Nested values inherit the name of the param they sit in.
import { badRequest } from '../errors.ts'

// C0 but tab, LF and CR; DEL; C1.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/
const ADDRESS_CONTROL = /[\u0000-\u001f\u007f-\u009f]/
const ADDRESS_PARAM = /^(urls?|websites?|domains?|[a-z0-9_]+_urls?)$/

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`

/** Throws 400 naming the first param (dotted path) that holds a control character it may not. */
export function assertNoControlCharacters (params: Record<string, unknown>, paramsAt = 'params'): void {
  const visit = (value: unknown, path: string, address: boolean): void => {
    if (typeof value === 'string') {
      const found = (address ? ADDRESS_CONTROL : CONTROL).exec(value)
      if (found) {
        throw badRequest(`${path} contains a control character (${codePoint(found[0])})${address ? ', which no address may hold' : ''}.`)
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => visit(item, `${path}[${i}]`, address))
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, `${path}.${key}`, address || ADDRESS_PARAM.test(key))
    }
  }
  visit(params, paramsAt, false)
}

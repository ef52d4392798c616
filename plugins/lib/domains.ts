// A site's domain from what people and upstreams write for it ("www.Acme.com",
// "https://acme.com/contact", "acme.com:8080"), so every plugin compares the
// same form. Pure.
//
// Not the registrable domain: shop.acme.co.uk stays shop.acme.co.uk. That needs
// the Public Suffix List (tldts), which is not a declared dependency today.

/** example.com from "https://www.example.com/path" or "www.example.com"; null for a non-web scheme (mailto:, tel:) or a name that is not a domain. */
export function siteDomain (input: unknown): string | null {
  if (typeof input !== 'string') return null
  const s = input.trim().toLowerCase()
  if (!s) return null
  // mailto:, tel: and other schemes are not websites ("host:8080" is).
  if (/^[a-z][a-z0-9+.-]*:(?!\d)/.test(s) && !/^https?:\/\//.test(s)) return null
  try {
    const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//.test(s) ? s : `http://${s}`).hostname.replace(/^www\./, '')
    return /^[a-z0-9_.-]+\.[a-z0-9-]+$/.test(host) || /^\d+\.\d+\.\d+\.\d+$/.test(host) ? host : null
  } catch { return null }
}

/** A host lower-cased without `www.`, so www and apex count as one site. */
export function siteHost (host: string): string {
  return host.toLowerCase().replace(/^www\./, '')
}

/** The host of an absolute URL, lower-cased, without `www.`; '' when it does not parse. */
export function hostOf (url: string): string {
  try {
    return siteHost(new URL(url).hostname)
  } catch {
    return ''
  }
}

/** A link as people write it (the scheme optional) on a host `onHost` accepts (lower-cased): its http(s) URL, else null. */
export function linkOnHost (text: string, onHost: (host: string) => boolean): URL | null {
  const url = websiteUrl(text)
  return url && /^https?:$/.test(url.protocol) && onHost(url.hostname.toLowerCase()) ? url : null
}

/** The URL a website as people write it stands for ("acme.com/contact" is https://acme.com/contact); null when it does not parse. */
export function websiteUrl (website: string): URL | null {
  const trimmed = website.trim()
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`)
  } catch {
    return null
  }
}

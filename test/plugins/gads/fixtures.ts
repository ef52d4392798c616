// Hand-made Transparency Center RPC answers, modelled on the shapes the
// open-source scraper faniAhmed/GoogleAdsTransparencyScraper (GoogleAds/main.py)
// and other public collectors read from adstransparency.google.com:
// SearchSuggestions {"1":[{"1":{"1":name,"2":"AR…","3":country,"4":{"2":{"1":low,"2":high}}}}, {"2":{"1":domain}}]}
// SearchCreatives   {"1":[{"1":"AR…","2":"CR…","3":{"1":{"4":preview}},"4":format,"6":{"1":secs},"7":{"1":secs},"12":name}],"2":token}
// No real capture of these endpoints is in ../shared/fixtures/captures.

export const secondsAgo = (days: number, now = Date.now()) => String(Math.floor((now - days * 86_400_000) / 1000))

export function creative (advertiserId: string, creativeId: string, name: string, opts: { format?: number, firstDaysAgo?: number, lastDaysAgo?: number, domain?: string } = {}) {
  return {
    1: advertiserId,
    2: creativeId,
    3: { 1: { 4: `https://displayads-formats.googleusercontent.com/ads/preview/content.js?creativeId=${creativeId}` } },
    4: opts.format ?? 2,
    6: { 1: secondsAgo(opts.firstDaysAgo ?? 200), 2: 123000000 },
    7: { 1: secondsAgo(opts.lastDaysAgo ?? 1), 2: 456000000 },
    12: name,
    ...(opts.domain ? { 14: opts.domain } : {}),
  }
}

export const suggestionAdvertiser = (name: string, id: string, country: string | null, low?: number | string, high?: number | string) =>
  ({ 1: { 1: name, 2: id, ...(country ? { 3: country } : {}), ...(low !== undefined ? { 4: { 2: { 1: low, 2: high } } } : {}) } })

export const suggestionDomain = (domain: string) => ({ 2: { 1: domain } })

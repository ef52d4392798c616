// Reading sitemaps (sitemaps.org protocol): the <loc> entries of a sitemap or a
// sitemap index, whether a document is an index, and the `Sitemap:` lines of
// robots.txt. Pure: the run fetches (ctx.http, with its size cap), this reads.
// Regular expressions rather than an XML parser: sitemaps are flat, often
// malformed (unescaped &, stray CDATA), and can be megabytes long.

/**
 * <loc> entries of a sitemap (or sitemap index) document, in order, `&amp;` decoded.
 * Each whitespace run has one place to go: `<loc>\s*(?:<!\[CDATA\[)?\s*` let a
 * `<loc>` followed by n spaces backtrack n² times (40,000 spaces: 16 s).
 */
export function sitemapLocations (xml: string): string[] {
  const out: string[] = []
  for (const m of xml.matchAll(/<loc>\s*(?:<!\[CDATA\[\s*)?([^<\]\s]+)\s*(?:\]\]>\s*)?<\/loc>/gi)) out.push(m[1]!.replace(/&amp;/g, '&'))
  return out
}

/** A sitemap index lists sitemaps, not pages. */
export const isSitemapIndex = (xml: string): boolean => /<sitemapindex[\s>]/i.test(xml)

/**
 * `Sitemap:` lines of robots.txt, each once. Spaces and tabs only around the
 * name: `^\s*` crossed line ends, so every empty line restarted a scan to the
 * end of the file (40,000 blank lines: 9 s).
 */
export function robotsSitemaps (robots: string): string[] {
  return [...new Set([...robots.matchAll(/^[ \t]*sitemap:[ \t]*(\S+)/gim)].map(m => m[1]!))]
}

/** A location that is itself a sitemap (.xml or .xml.gz), to be read rather than crawled. */
export const isSitemapUrl = (url: string): boolean => /\.xml(\.gz)?($|\?)/i.test(url)

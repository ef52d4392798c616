// Slugs: the post's address under /api/blog/<slug>. Pure functions; the
// service asks the database which candidates are taken.

export const SLUG_MAX = 80
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$'
const SLUG_SHAPE = new RegExp(SLUG_PATTERN)

/** Paths under /api/blog/ that are routes, so no post may take them. */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set(['list', 'post', 'generate'])

// Letters NFKD does not decompose into ASCII.
const FOLD: Record<string, string> = {
  ß: 'ss', ẞ: 'ss', æ: 'ae', Æ: 'ae', œ: 'oe', Œ: 'oe', ø: 'o', Ø: 'o', đ: 'd', Đ: 'd', ð: 'd', Ð: 'd',
  ł: 'l', Ł: 'l', þ: 'th', Þ: 'th', ı: 'i', ħ: 'h', Ħ: 'h', ŋ: 'n', Ŋ: 'n',
}

/** `Crème brûlée & Co.` → `creme-brulee-co`. Empty when nothing ASCII is left. */
export function slugify (title: string): string {
  const folded = title
    .replace(/[ßẞæÆœŒøØđĐðÐłŁþÞıħĦŋŊ]/g, c => FOLD[c]!)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’‘`]/g, '') // "don't" → "dont", not "don-t"
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  if (folded.length <= SLUG_MAX) return folded
  // Cut at a word boundary when one is close, so the slug does not end mid-word.
  const cut = folded.slice(0, SLUG_MAX)
  const lastHyphen = cut.lastIndexOf('-')
  return (lastHyphen >= SLUG_MAX / 2 ? cut.slice(0, lastHyphen) : cut).replace(/-+$/, '')
}

export const isSlug = (value: string) => value.length <= SLUG_MAX && SLUG_SHAPE.test(value)

/** The base slug for a title: `article` when the title has no ASCII letters or digits left. */
export function baseSlug (title: string): string {
  return slugify(title) || 'article'
}

/**
 * The first free slug among `base`, `base-2`, `base-3` … given the slugs that
 * already start with `base`. Reserved route names count as taken.
 */
export function firstFreeSlug (base: string, taken: Iterable<string>): string {
  const used = new Set(taken)
  const free = (s: string) => !used.has(s) && !RESERVED_SLUGS.has(s)
  if (free(base)) return base
  for (let n = 2; ; n++) {
    const suffix = `-${n}`
    const candidate = base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, '') + suffix
    if (free(candidate)) return candidate
  }
}

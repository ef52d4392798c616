// What a blog post may hold: ordinary article markup and nothing that runs.
// Everything a client sends (or a model writes) passes through here before it
// is stored, so every reader gets the same safe HTML.
import sanitizeHtml, { type IOptions } from 'sanitize-html'

// Raster images only: an inline SVG can carry script, and no other data: URL belongs in an article.
const SAFE_DATA_IMAGE = /^data:image\/(?:png|jpe?g|gif|webp|avif);base64,[a-z0-9+/=\s]+$/i

const ARTICLE: IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'picture', 'del', 'ins', 'details', 'summary'],
  disallowedTagsMode: 'discard',
  allowedAttributes: {
    a: ['href', 'name', 'target', 'rel', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height', 'loading'],
    abbr: ['title'],
    blockquote: ['cite'],
    q: ['cite'],
    ol: ['start', 'reversed', 'type'],
    li: ['value'],
    time: ['datetime'],
    data: ['value'],
    td: ['colspan', 'rowspan', 'headers'],
    th: ['colspan', 'rowspan', 'headers', 'scope'],
    col: ['span'],
    colgroup: ['span'],
    code: ['class'],
    pre: ['class'],
  },
  // Syntax highlighters mark the language with a class; no other class survives.
  allowedClasses: { code: ['language-*', 'lang-*'], pre: ['language-*', 'lang-*'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowedSchemesAppliedToAttributes: sanitizeHtml.defaults.allowedSchemesAppliedToAttributes,
  allowProtocolRelative: true,
  transformTags: {
    img: (tagName, attribs) => {
      const src = (attribs.src ?? '').trim()
      if (/^data:/i.test(src) && !SAFE_DATA_IMAGE.test(src)) {
        const { src: _dropped, ...rest } = attribs
        return { tagName, attribs: rest }
      }
      return { tagName, attribs }
    },
    // A link that opens a new tab must not hand the opener to the target.
    a: (tagName, attribs) => (attribs.target ? { tagName, attribs: { ...attribs, rel: 'noopener noreferrer' } } : { tagName, attribs }),
  },
  // An image whose source was removed is an empty box: drop it.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
}

const INLINE: IOptions = {
  ...ARTICLE,
  allowedTags: ['a', 'b', 'strong', 'i', 'em', 'u', 's', 'del', 'ins', 'mark', 'code', 'small', 'sub', 'sup', 'br', 'span', 'abbr'],
}

const TEXT_ONLY: IOptions = { allowedTags: [], allowedAttributes: {}, disallowedTagsMode: 'discard' }

/** Post content: article markup kept; script, style, iframe, event handlers and unsafe URLs removed. */
export const sanitizeArticle = (html: string): string => sanitizeHtml(html, ARTICLE).trim()

/** Excerpts: inline markup only (links, emphasis, code). */
export const sanitizeInline = (html: string): string => sanitizeHtml(html, INLINE).trim()

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'", '#x27': "'" }
const decodeEntities = (text: string) => text.replace(/&(amp|lt|gt|quot|apos|nbsp|#39|#x27);/g, (_m, name: string) => ENTITIES[name]!)

/**
 * Plain text (titles, categories, meta descriptions, keywords): tags removed,
 * entities decoded, whitespace collapsed. Repeated until stable so an escaped
 * tag (`&lt;script&gt;`) cannot turn back into markup once decoded.
 */
export function plainText (value: string): string {
  let text = value
  for (let i = 0; i < 5; i++) {
    const next = decodeEntities(sanitizeHtml(text, TEXT_ONLY))
    if (next === text) break
    text = next
  }
  return text.replace(/\s+/g, ' ').trim()
}

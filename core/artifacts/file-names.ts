// File names and types that come from tools and uploaders (page titles, video
// titles, a client's file name) are strangers' text: made safe once, here,
// before they reach a disk path, a database row or a response header.

const MAX_NAME = 200

/**
 * A name safe to store and to offer for download: no path separators, no
 * control or bidirectional-override characters, no leading dots (no hidden
 * files, no `..`), at most 200 characters keeping the extension; never empty.
 */
export function safeFileName (raw: string, fallback = 'file'): string {
  let name = String(raw ?? '')
    .normalize('NFC')
    // Path separators (both kinds) and what Windows refuses in a name become '_'.
    .replace(/[/\\:*?"<>|]/g, '_')
    // C0/C1 controls, DEL, and the bidi/zero-width marks that make `exe.txt` read as `txt.exe`.
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '')
    .trim()
    .replace(/^\.+/, '')
    .trim()
  if (name.length > MAX_NAME) {
    const dot = name.lastIndexOf('.')
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : ''
    name = name.slice(0, MAX_NAME - ext.length) + ext
  }
  return name || fallback
}

/** `type/subtype` (RFC 9110 tokens, no parameters), lower-cased; anything else is application/octet-stream. */
export function safeContentType (raw: string | undefined): string {
  const bare = String(raw ?? '').split(';')[0]!.trim().toLowerCase()
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(bare) && bare.length <= 127 ? bare : 'application/octet-stream'
}

/** Does `type` match one of `patterns` (`video/mp4`, or `video/*` for the family)? */
export function contentTypeMatches (type: string, patterns: readonly string[]): boolean {
  return patterns.some(p => p === type || (p.endsWith('/*') && type.startsWith(p.slice(0, -1))) || p === '*/*')
}

/**
 * `Content-Disposition: attachment` for a stored name (RFC 6266): an ASCII
 * `filename` fallback (quotes, backslashes and non-ASCII replaced) for old
 * clients, and the exact name as `filename*=UTF-8''…` (RFC 5987/8187).
 */
export function attachmentDisposition (name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_')
  const encoded = encodeURIComponent(name).replace(/['()*]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

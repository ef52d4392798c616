// Decoding a response body to text: byte-order mark, then the charset of the
// Content-Type header, then (HTML and XML only) the charset the document
// declares in its first bytes, else UTF-8. Pure, no I/O.

/** How far into a document its own charset declaration is looked for (the HTML spec prescans 1024 bytes). */
const PRESCAN_BYTES = 1024

function charsetFromContentType (contentType: string | null): string | null {
  const match = contentType ? /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType) : null
  return match ? match[1] : null
}

function charsetFromBom (bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8'
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be'
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le'
  return null
}

/** The charset an HTML (`<meta charset>`, `<meta http-equiv content>`) or XML (`<?xml encoding?>`) document declares. */
function sniffDocumentCharset (bytes: Uint8Array): string | null {
  // latin1 maps bytes 1:1, so the ASCII of the declaration survives whatever the real charset is.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, PRESCAN_BYTES)).toString('latin1')
  const xml = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(head)
  if (xml) return xml[1]
  const meta = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)
  if (!meta) return null
  // An ASCII-readable declaration of UTF-16 cannot be true; the HTML spec reads it as UTF-8.
  return /^utf-?16/i.test(meta[1]) ? 'utf-8' : meta[1]
}

function looksLikeMarkup (contentType: string | null): boolean {
  if (!contentType) return true
  return /html|xml/i.test(contentType)
}

// Node 20's TextDecoder decodes windows-1252 (which the WHATWG Encoding
// standard also uses for every iso-8859-1, latin1 and ascii label) as plain
// latin1, turning 0x80..0x9f into C1 controls instead of € ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – — ˜ ™ š › œ ž Ÿ.
// Undefined bytes (0x81, 0x8d, 0x8f, 0x90, 0x9d) stay as their C1 code point.
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
]

interface BodyDecoder { decode (bytes: Uint8Array): string }

const windows1252Decoder: BodyDecoder = {
  decode (bytes) {
    const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
    return latin1.replace(/[\x80-\x9f]/g, c => String.fromCharCode(WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]))
  },
}

function decoderFor (label: string | null): BodyDecoder | null {
  if (!label) return null
  try {
    const decoder = new TextDecoder(label.trim().toLowerCase())
    return decoder.encoding === 'windows-1252' ? windows1252Decoder : decoder
  } catch {
    return null // unknown label: fall through to the next source
  }
}

export function decodeBody (bytes: Uint8Array, contentType: string | null): string {
  const decoder = decoderFor(charsetFromBom(bytes)) ??
    decoderFor(charsetFromContentType(contentType)) ??
    (looksLikeMarkup(contentType) ? decoderFor(sniffDocumentCharset(bytes)) : null) ??
    new TextDecoder('utf-8')
  return decoder.decode(bytes)
}

// What a failed fetch may say to the client who started the job. Network
// errors from node, undici and got name the address and port they tried
// ("connect ECONNREFUSED 127.0.0.1:6379"): passed on, they would turn the
// tools into a port scanner of the server's network, telling a closed port
// from an open one. So failures are described by a fixed phrase chosen from
// the error's code, never by its message, and URLs lose their user:password.
import { BlockedTargetError, InputError, UpstreamError } from '../tools/contract.ts'

/** The URL as an error may show it: without user name and password. Anything unparsable is not shown at all. */
export function redactUrl (href: string | URL): string {
  try {
    const url = new URL(href)
    if (url.username || url.password) {
      url.username = ''
      url.password = ''
    }
    return url.href
  } catch {
    return '(invalid URL)'
  }
}

// Every way a connection can fail to open reads the same: a refused,
// unreachable or silent port must not be told apart (the port-scan oracle).
const CONNECT_CODES = new Set([
  'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'ETIMEDOUT', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT',
])
// A connection that opened and then broke. Only a target the guard allowed is
// ever connected to, so telling this apart reveals nothing of the inside.
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ERR_STREAM_PREMATURE_CLOSE', 'ECONNABORTED'])
const NAME_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA'])
const COMPRESSION_CODES = new Set(['Z_DATA_ERROR', 'Z_BUF_ERROR', 'Z_STREAM_ERROR', 'ERR_BROTLI_DECOMPRESSION_FAILED', 'ERR__ERROR_FORMAT_PADDING_1'])

// Codes as libraries write them into messages: crawlee, for one, re-wraps a
// refused connection as a SessionError whose only trace of it is the text
// "connect ECONNREFUSED 10.0.0.5:6379".
const CODE_IN_TEXT = /\b(E(?:CONN[A-Z]+|HOST[A-Z]+|NET[A-Z]+|TIMEDOUT|PIPE|ADDRNOTAVAIL|NOTFOUND|AI_[A-Z]+|NODATA|PROTO)|UND_ERR_[A-Z_]+|ERR_[A-Z0-9_]+|HPE_[A-Z_]+|Z_[A-Z_]+|[A-Z_]*CERT[A-Z_]*)\b/g

function errorCodes (err: unknown): string[] {
  const codes: string[] = []
  let current = err
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') codes.push(code)
    const message = (current as { message?: unknown }).message
    if (typeof message === 'string') codes.push(...(message.match(CODE_IN_TEXT) ?? []))
    current = (current as { cause?: unknown }).cause
  }
  return codes
}

/** A fixed phrase for a network failure, from its error code; never the error's own text. */
export function describeNetworkFailure (err: unknown): string {
  for (const code of errorCodes(err)) {
    if (CONNECT_CODES.has(code)) return 'could not connect'
    if (RESET_CODES.has(code)) return 'connection reset'
    if (NAME_CODES.has(code)) return 'host name not found'
    if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS|ERR_SSL|SSL_/i.test(code)) return 'TLS certificate not valid for this host'
    if (COMPRESSION_CODES.has(code) || code.startsWith('Z_')) return 'invalid compressed body'
    if (code.startsWith('HPE_') || code === 'UND_ERR_INFO' || code === 'ERR_HTTP2_ERROR') return 'invalid HTTP response'
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') return 'timed out'
  }
  return 'network error'
}

/** The guard's and the tools' own errors already say only what a client may read. */
function isPublicNetworkError (err: unknown): err is BlockedTargetError | UpstreamError | InputError {
  return err instanceof BlockedTargetError || err instanceof UpstreamError || err instanceof InputError
}

/** The guard's own error, also when a library wrapped it (got wraps what its hooks throw in a RequestError with the hook's error as cause). */
export function publicCause (err: unknown): BlockedTargetError | UpstreamError | InputError | null {
  let current = err
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    if (isPublicNetworkError(current)) return current
    current = (current as { cause?: unknown }).cause
  }
  return null
}

// Literal addresses (with a port, or bracketed IPv6) inside text that is not ours.
const ADDRESS_IN_TEXT = /\[[0-9a-f:.]+\](:\d+)?|\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b|\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{0,4}\b/gi

/**
 * The text of an error from a library (crawlee, got) as a client may read it:
 * network errors become a fixed phrase, other messages keep their words but
 * lose any literal address and port and any URL credentials.
 */
export function publicErrorText (err: unknown, href: string): string {
  const own = publicCause(err)
  if (own) return own.message
  if (errorCodes(err).length > 0) return `Could not load ${redactUrl(href)}: ${describeNetworkFailure(err)}`
  const message = err instanceof Error ? err.message : String(err)
  return message
    .replace(/\b(https?:\/\/)[^\s/@]+@/gi, '$1')
    .replace(ADDRESS_IN_TEXT, '(address)')
}

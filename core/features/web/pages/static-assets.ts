// The files the pages load (the public pages' stylesheets, the dashboard's
// bundle), served from this origin (no CDN: a self-hosted server may have no
// internet, and the CSP allows 'self' only). Each asset is compressed once
// per coding, by the first request for it (they are a few KB), so a request costs a header
// comparison: brotli or gzip as the client accepts, an ETag with 304 on
// If-None-Match, and the caching its route chooses (a year, immutable, for a
// URL that names the content's version), so a slow phone downloads a file
// once per release.
import { qualityValues } from '../../../accept-header.ts'
import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'

export interface StaticAsset {
  name: string
  contentType: string
  /** Short content hash: the `v` query the pages link with, and the ETag. */
  version: string
  etag: string
  identity: Buffer
  gzip: Buffer
  br: Buffer
}

export type ContentCoding = 'br' | 'gzip' | 'identity'

export function buildAsset (name: string, contentType: string, content: string | Uint8Array): StaticAsset {
  const identity = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content)
  const version = createHash('sha256').update(identity).digest('base64url').slice(0, 12)
  // Each coding is made with the first request that takes it, then kept: brotli at
  // quality 11 and gzip at level 9 of the site's stylesheets were ≈ 20 ms of every start.
  let gzip: Buffer | undefined
  let br: Buffer | undefined
  return {
    name,
    contentType,
    version,
    etag: `"${version}"`,
    identity,
    get gzip () { return (gzip ??= gzipSync(identity, { level: 9 })) },
    get br () { return (br ??= brotliCompressSync(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length } })) },
  }
}


/**
 * The best coding the client accepts (RFC 9110 §12.5.3): brotli, then gzip,
 * else none. `q=0` refuses a coding; `*` stands for any coding not named.
 */
export function chooseCoding (acceptEncoding: string | undefined): ContentCoding {
  if (!acceptEncoding) return 'identity'
  const weights = qualityValues(acceptEncoding)
  const weightOf = (coding: string) => weights.get(coding) ?? weights.get('*') ?? 0
  const br = weightOf('br')
  const gzip = weightOf('gzip')
  if (br > 0 && br >= gzip) return 'br'
  if (gzip > 0) return 'gzip'
  return 'identity'
}

/** True when an If-None-Match header names this ETag (or `*`): the client's copy is current. */
function isCurrent (ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  return ifNoneMatch.split(',').some(tag => {
    const t = tag.trim()
    return t === '*' || t === etag || t === `W/${etag}`
  })
}

/**
 * Answers with an asset: its ETag (304 when the client's copy is current),
 * `nosniff`, the given caching, and the coding the client accepts best.
 */
export function sendAsset (req: FastifyRequest, reply: FastifyReply, asset: StaticAsset, cacheControl: string): FastifyReply {
  reply
    .header('etag', asset.etag)
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', cacheControl)
  if (isCurrent(req.headers['if-none-match'], asset.etag)) return reply.code(304).send()
  const coding = chooseCoding(req.headers['accept-encoding'])
  reply.type(asset.contentType)
  if (coding !== 'identity') reply.header('content-encoding', coding)
  return reply.send(asset[coding])
}

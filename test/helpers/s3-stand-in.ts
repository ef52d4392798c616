// A local S3 stand-in for the artifact store's tests: node:http on
// 127.0.0.1:0, path-style (`/<bucket>/<key>`), objects in memory. It serves
// what S3ArtifactStore calls (PutObject, GetObject with Range, HeadObject,
// DeleteObject, ListObjectsV2, DeleteObjects) and refuses with 403 any request
// that is not AWS SigV4-signed with the configured key pair: the signature is
// recomputed from the request, so a wrong secret, region or canonical form fails.
import { createHash, createHmac } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface S3Request { method: string, key: string, query: string, range?: string, accessKeyId?: string }

export interface S3StandIn {
  endpoint: string
  bucket: string
  region: string
  accessKeyId: string
  secretAccessKey: string
  /** The env that points an app at this stand-in. */
  env: Record<string, string>
  objects: Map<string, Buffer>
  requests: S3Request[]
  /** Keys under a prefix, sorted. */
  keys (prefix?: string): string[]
  close (): Promise<void>
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest()
/** RFC 3986 encoding as SigV4 wants it (encodeURIComponent plus !'()*). */
const strictEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function canonicalQuery (raw: string): string {
  if (!raw) return ''
  return raw.split('&').filter(Boolean).map(pair => {
    const eq = pair.indexOf('=')
    const [k, v] = eq === -1 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)]
    return [strictEncode(decodeURIComponent(k)), strictEncode(decodeURIComponent(v.replace(/\+/g, '%20')))]
  }).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : a[1]! < b[1]! ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&')
}

/** null when the request is signed right; else why not. */
function signatureProblem (req: IncomingMessage, path: string, query: string, keys: { accessKeyId: string, secretAccessKey: string, region: string }): string | null {
  const auth = req.headers.authorization ?? ''
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth)
  if (!m) return 'not SigV4-signed'
  const [, keyId, date, region, signedHeaders, signature] = m
  if (keyId !== keys.accessKeyId) return `unknown access key ${keyId}`
  if (region !== keys.region) return `signed for region ${region}`
  const amzDate = String(req.headers['x-amz-date'] ?? '')
  if (!amzDate.startsWith(date!)) return 'x-amz-date does not match the credential scope'
  const headerNames = signedHeaders!.split(';')
  if (!headerNames.includes('host')) return 'host is not signed'
  const canonicalHeaders = headerNames.map(name => `${name}:${String(req.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('')
  const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '')
  if (!payloadHash) return 'no x-amz-content-sha256'
  const canonicalRequest = [req.method, path, canonicalQuery(query), canonicalHeaders, signedHeaders, payloadHash].join('\n')
  const scope = `${date}/${region}/s3/aws4_request`
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n')
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${keys.secretAccessKey}`, date!), region!), 's3'), 'aws4_request')
  if (hmac(signingKey, stringToSign).toString('hex') !== signature) return 'signature does not match'
  return null
}

async function bodyOf (req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

function s3Error (res: ServerResponse, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

export async function startS3StandIn (t: { teardown (fn: () => unknown): void }, options: { bucket?: string, region?: string, prefix?: string } = {}): Promise<S3StandIn> {
  const bucket = options.bucket ?? 'job-files'
  const region = options.region ?? 'us-east-1'
  const accessKeyId = 'AKIASTANDIN0000001'
  const secretAccessKey = 'stand-in-secret/Key+0123456789abcdef'
  const objects = new Map<string, Buffer>()
  const requests: S3Request[] = []

  const server = createServer((req, res) => {
    void (async () => {
      const [rawPath = '/', query = ''] = (req.url ?? '/').split('?', 2)
      const problem = signatureProblem(req, rawPath, query, { accessKeyId, secretAccessKey, region })
      const segments = rawPath.split('/')
      const key = segments.slice(2).map(decodeURIComponent).join('/')
      requests.push({ method: req.method!, key, query, range: req.headers.range, accessKeyId: /Credential=([^/]+)/.exec(req.headers.authorization ?? '')?.[1] })
      if (problem) { await bodyOf(req); return s3Error(res, 403, 'SignatureDoesNotMatch', problem) }
      if (decodeURIComponent(segments[1] ?? '') !== bucket) { await bodyOf(req); return s3Error(res, 404, 'NoSuchBucket', 'no such bucket') }
      const params = new URLSearchParams(query)
      if (req.method === 'PUT' && key) {
        if (req.headers['content-encoding']?.includes('aws-chunked')) return s3Error(res, 400, 'NotImplemented', 'aws-chunked bodies are not served here')
        const body = await bodyOf(req)
        const declared = Number(req.headers['content-length'])
        if (declared !== body.length) return s3Error(res, 400, 'IncompleteBody', 'body shorter than Content-Length')
        if (req.headers['x-amz-content-sha256'] !== 'UNSIGNED-PAYLOAD' && req.headers['x-amz-content-sha256'] !== sha256(body)) return s3Error(res, 400, 'XAmzContentSHA256Mismatch', 'payload hash')
        objects.set(key, body)
        res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` })
        return res.end()
      }
      if (req.method === 'POST' && params.has('delete')) {
        const xml = (await bodyOf(req)).toString('utf8')
        for (const m of xml.matchAll(/<Key>([^<]*)<\/Key>/g)) objects.delete(m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'))
        const body = '<?xml version="1.0" encoding="UTF-8"?><DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></DeleteResult>'
        res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) })
        return res.end(body)
      }
      await bodyOf(req)
      if (req.method === 'GET' && !key && params.get('list-type') === '2') {
        const prefix = params.get('prefix') ?? ''
        const max = Number(params.get('max-keys') ?? 1000)
        const after = params.get('continuation-token') ?? ''
        const all = [...objects.keys()].filter(k => k.startsWith(prefix) && k > after).sort()
        const page = all.slice(0, max)
        const truncated = all.length > page.length
        const body = '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
          `<Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>` +
          page.map(k => `<Contents><Key>${xmlEscape(k)}</Key><Size>${objects.get(k)!.length}</Size></Contents>`).join('') +
          (truncated ? `<NextContinuationToken>${xmlEscape(page.at(-1)!)}</NextContinuationToken>` : '') + '</ListBucketResult>'
        res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) })
        return res.end(body)
      }
      const object = objects.get(key)
      if (req.method === 'DELETE' && key) { objects.delete(key); res.writeHead(204); return res.end() }
      if ((req.method === 'GET' || req.method === 'HEAD') && key) {
        if (!object) {
          if (req.method === 'HEAD') { res.writeHead(404); return res.end() }
          return s3Error(res, 404, 'NoSuchKey', 'The specified key does not exist.')
        }
        const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')
        if (range) {
          const start = Number(range[1])
          const end = Math.min(Number(range[2]), object.length - 1)
          if (start >= object.length) return s3Error(res, 416, 'InvalidRange', 'The requested range is not satisfiable')
          res.writeHead(206, { 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${object.length}`, 'content-type': 'application/octet-stream' })
          return res.end(req.method === 'HEAD' ? undefined : object.subarray(start, end + 1))
        }
        res.writeHead(200, { 'content-length': object.length, 'content-type': 'application/octet-stream' })
        return res.end(req.method === 'HEAD' ? undefined : object)
      }
      return s3Error(res, 501, 'NotImplemented', `${req.method} ${rawPath}?${query} is not served by the stand-in`)
    })().catch(err => { if (!res.headersSent) s3Error(res, 500, 'InternalError', String(err)); else res.destroy() })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = () => new Promise<void>(resolve => { server.closeAllConnections(); server.close(() => resolve()) })
  t.teardown(close)
  return {
    endpoint,
    bucket,
    region,
    accessKeyId,
    secretAccessKey,
    env: {
      ARTIFACTS_S3_BUCKET: bucket,
      ARTIFACTS_S3_REGION: region,
      ARTIFACTS_S3_ENDPOINT: endpoint,
      ARTIFACTS_S3_ACCESS_KEY_ID: accessKeyId,
      ARTIFACTS_S3_SECRET_ACCESS_KEY: secretAccessKey,
      ARTIFACTS_S3_FORCE_PATH_STYLE: '1',
      ...(options.prefix ? { ARTIFACTS_S3_PREFIX: options.prefix } : {}),
    },
    objects,
    requests,
    keys: (prefix = '') => [...objects.keys()].filter(k => k.startsWith(prefix)).sort(),
    close,
  }
}

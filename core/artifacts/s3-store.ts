// The artifact store in an S3-compatible bucket (AWS S3, MinIO, R2 …), so that
// several processes on several machines serve the same job files. Keys are
// `<ARTIFACTS_S3_PREFIX><job_id>/<artifact_id>`.
//
// A write is staged to a local file first, under the same caps as the
// directory store (capped-write.ts), then sent as one PutObject from a file
// stream with its exact length: the body is never whole in memory, a write
// that passes a cap never reaches the bucket, and PutObject needs the length
// up front (a length-less stream would need a multipart upload for every file).
// The bucket is the operator's, not a job's target: the client talks to it
// directly, not through the tool network guard or PROXY_URL. The SDK (≈ 0.7 s
// and 25 MB to load) loads with the first request, not at boot, like the MCP SDK.
import { randomUUID } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import type { S3Client } from '@aws-sdk/client-s3'
import type { S3StoreConfig } from '../config.ts'
import { assertKeySegment, type ArtifactStore, type ByteRange, type StoredObject } from './artifact-store.ts'
import { writeCapped } from './capped-write.ts'

/** DeleteObjects takes at most 1000 keys a request. */
const DELETE_BATCH = 1000

function isNotFound (err: unknown): boolean {
  const e = err as { name?: string, $metadata?: { httpStatusCode?: number } }
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404
}

type S3Sdk = typeof import('@aws-sdk/client-s3')

export class S3ArtifactStore implements ArtifactStore {
  private connection: Promise<{ sdk: S3Sdk, client: S3Client }> | null = null
  private client: S3Client | null = null

  constructor (private readonly config: S3StoreConfig, private readonly stagingDir: string) {}

  private connect (): Promise<{ sdk: S3Sdk, client: S3Client }> {
    this.connection ??= import('@aws-sdk/client-s3').then(sdk => ({ sdk, client: (this.client = this.newClient(sdk)) }))
    return this.connection
  }

  private newClient ({ S3Client }: S3Sdk): S3Client {
    const { config } = this
    return new S3Client({
      region: config.region,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      forcePathStyle: config.forcePathStyle,
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
      // Checksums only where S3 requires one: the newer default (a CRC32 trailer on every upload,
      // aws-chunked) is refused by several S3-compatible stores.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A bucket that stops answering fails the write or the download instead of holding it forever
      // (requestTimeout is the socket's idle time, not the length of a long transfer).
      requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
    })
  }

  private objectKey (key: string): string {
    const [jobId, id, ...rest] = key.split('/')
    if (rest.length || !jobId || !id) throw new Error('an artifact key is <job_id>/<artifact_id>')
    return `${this.config.prefix}${assertKeySegment(jobId)}/${assertKeySegment(id)}`
  }

  async put (key: string, body: AsyncIterable<Uint8Array>, options: { maxBytes: number, signal?: AbortSignal }): Promise<StoredObject> {
    const objectKey = this.objectKey(key)
    await mkdir(this.stagingDir, { recursive: true, mode: 0o700 })
    const staged = join(this.stagingDir, randomUUID())
    try {
      const stored = await writeCapped(staged, body, options)
      const { sdk, client } = await this.connect()
      await client.send(new sdk.PutObjectCommand({
        Bucket: this.config.bucket,
        Key: objectKey,
        Body: createReadStream(staged),
        ContentLength: stored.size,
      }), { abortSignal: options.signal })
      return stored
    } finally {
      await rm(staged, { force: true })
    }
  }

  async get (key: string, range?: ByteRange): Promise<Readable> {
    const { sdk, client } = await this.connect()
    const answer = await client.send(new sdk.GetObjectCommand({
      Bucket: this.config.bucket,
      Key: this.objectKey(key),
      ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
    }))
    const body = answer.Body
    if (!body) throw new Error('the bucket answered an object without a body')
    // In Node the SDK's body is an http.IncomingMessage: a Readable already, streamed as it arrives.
    return body instanceof Readable ? body : Readable.fromWeb((body as { transformToWebStream (): ReadableStream }).transformToWebStream() as never)
  }

  async stat (key: string): Promise<{ size: number } | null> {
    const { sdk, client } = await this.connect()
    try {
      const head = await client.send(new sdk.HeadObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }))
      return { size: Number(head.ContentLength ?? 0) }
    } catch (err) {
      if (isNotFound(err)) return null
      throw err
    }
  }

  async delete (key: string): Promise<void> {
    const { sdk, client } = await this.connect()
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }))
  }

  /** Lists `<prefix><job_id>/` a page at a time and deletes each page with one DeleteObjects. */
  async deleteJob (jobId: string): Promise<void> {
    const prefix = `${this.config.prefix}${assertKeySegment(jobId)}/`
    const { sdk, client } = await this.connect()
    let token: string | undefined
    do {
      const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: DELETE_BATCH }))
      const keys = (page.Contents ?? []).map(o => o.Key).filter((k): k is string => typeof k === 'string' && k.startsWith(prefix))
      if (keys.length) {
        const result = await client.send(new sdk.DeleteObjectsCommand({ Bucket: this.config.bucket, Delete: { Objects: keys.map(Key => ({ Key })), Quiet: true } }))
        const failed = (result.Errors ?? []).filter(e => e.Code !== 'NoSuchKey')
        if (failed.length) throw new Error(`the bucket refused to delete ${failed.length} of job ${jobId}'s files (${failed[0]!.Code ?? 'error'})`)
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
  }

  close (): void { this.client?.destroy() }
}

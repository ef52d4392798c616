// One streamed writer for every file a job keeps (artifacts) or takes (uploads):
// backpressure from the disk, a byte cap checked as the bytes come, a SHA-256 on
// the way, and no partial file left behind whatever stops it.
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { pipeline } from 'node:stream/promises'
import { StoreSizeLimitError, type StoredObject } from './artifact-store.ts'

/** A Buffer is one chunk (Readable.from would walk it byte by byte); streams and iterables pass as they are. */
export function asChunks (body: NodeJS.ReadableStream | AsyncIterable<Uint8Array> | Uint8Array): AsyncIterable<Uint8Array> {
  if (body instanceof Uint8Array) return (async function * () { yield body })()
  return body as AsyncIterable<Uint8Array>
}

/** Writes to `<path>.part` (0600), renames to `path` when whole; removes the part on any failure. */
export async function writeCapped (path: string, body: AsyncIterable<Uint8Array>, options: { maxBytes: number, signal?: AbortSignal }): Promise<StoredObject> {
  const part = `${path}.part`
  const hash = createHash('sha256')
  let size = 0
  const { maxBytes } = options
  try {
    const count = async function * (source: AsyncIterable<Uint8Array>) {
      for await (const chunk of source) {
        size += chunk.length
        if (size > maxBytes) throw new StoreSizeLimitError(maxBytes)
        hash.update(chunk)
        yield chunk
      }
    }
    const sink = createWriteStream(part, { flags: 'wx', mode: 0o600 })
    if (options.signal) await pipeline(body, count, sink, { signal: options.signal })
    else await pipeline(body, count, sink)
    await rename(part, path)
  } catch (err) {
    await rm(part, { force: true })
    throw err
  }
  return { size, sha256: hash.digest('hex') }
}

// Where the bytes of job files live, behind one interface: a directory
// (directory-store.ts) or an S3-compatible bucket (s3-store.ts: PutObject from a stream,
// GetObject with Range, HeadObject, DeleteObject, DeleteObjects under a
// prefix). Keys are `<job_id>/<artifact_id>`; names, types and owners are the
// database's (the Artifact model), never the store's.
import type { Readable } from 'node:stream'

export interface StoredObject { size: number, sha256: string }

/** Inclusive byte range, as in HTTP Range. */
export interface ByteRange { start: number, end: number }

export interface ArtifactStore {
  /**
   * Writes `body` under `key` as it comes. Past `maxBytes`, or when the body
   * throws, or `signal` aborts, the write stops, nothing is left under the
   * key, and the error is rethrown (a `StoreSizeLimitError` for the cap).
   */
  put (key: string, body: AsyncIterable<Uint8Array>, options: { maxBytes: number, signal?: AbortSignal }): Promise<StoredObject>
  /** The object's bytes (a range of them when given); rejects when it is gone. */
  get (key: string, range?: ByteRange): Promise<Readable>
  stat (key: string): Promise<{ size: number } | null>
  delete (key: string): Promise<void>
  /** Every object of one job (`<job_id>/…`). */
  deleteJob (jobId: string): Promise<void>
}

export class StoreSizeLimitError extends Error {
  constructor (readonly maxBytes: number) { super(`more than ${maxBytes} bytes`); this.name = 'StoreSizeLimitError' }
}

/** Key segments are ids the kernel made (UUIDs): anything else never reaches a path. */
export function assertKeySegment (segment: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(segment)) throw new Error(`bad artifact key segment '${segment.slice(0, 40)}'`)
  return segment
}

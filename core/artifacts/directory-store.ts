// The artifact store on local disk: ARTIFACTS_DIR/<job_id>/<artifact_id>,
// directories 0700 and files 0600 like the rest of DATA_DIR.
import { createReadStream } from 'node:fs'
import { mkdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { assertKeySegment, type ArtifactStore, type ByteRange, type StoredObject } from './artifact-store.ts'
import { writeCapped } from './capped-write.ts'

export class DirectoryArtifactStore implements ArtifactStore {
  constructor (private readonly root: string) {}

  private path (key: string): { dir: string, file: string } {
    const [jobId, id, ...rest] = key.split('/')
    if (rest.length || !jobId || !id) throw new Error('an artifact key is <job_id>/<artifact_id>')
    const dir = join(this.root, assertKeySegment(jobId))
    return { dir, file: join(dir, assertKeySegment(id)) }
  }

  async put (key: string, body: AsyncIterable<Uint8Array>, options: { maxBytes: number, signal?: AbortSignal }): Promise<StoredObject> {
    const { dir, file } = this.path(key)
    await mkdir(dir, { recursive: true, mode: 0o700 })
    return writeCapped(file, body, options)
  }

  async get (key: string, range?: ByteRange): Promise<Readable> {
    const { file } = this.path(key)
    const stream = createReadStream(file, range ? { start: range.start, end: range.end } : {})
    // Open before answering: a file gone since its row was read is an error here, not a cut response.
    await new Promise<void>((resolve, reject) => { stream.once('open', () => resolve()); stream.once('error', reject) })
    return stream
  }

  async stat (key: string): Promise<{ size: number } | null> {
    try { return { size: (await stat(this.path(key).file)).size } } catch { return null }
  }

  async delete (key: string): Promise<void> {
    await rm(this.path(key).file, { force: true })
  }

  async deleteJob (jobId: string): Promise<void> {
    await rm(join(this.root, assertKeySegment(jobId)), { recursive: true, force: true })
  }
}

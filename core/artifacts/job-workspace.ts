// Each job's local working files, under DATA_DIR/work/<job_id>/: `scratch/`
// (ctx.scratchDir) and `upload/` (the file of a multipart start). The whole
// directory goes when the job ends, however it ends (core/jobs/job-ending.ts);
// a shutdown hand-back keeps the upload, which the resumed run needs. Uploads
// arrive in `.incoming/` before their job exists and move in when it does.
import { randomUUID } from 'node:crypto'
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { StoredObject } from './artifact-store.ts'
import { assertKeySegment } from './artifact-store.ts'
import { writeCapped } from './capped-write.ts'

/**
 * An upload's place in its account's budget (core/artifacts/upload-budget.ts):
 * `bytes` cap the file as it arrives; settled to the file's size once whole;
 * released when the file becomes its job's or is discarded. Neither throws
 * (a hold that could not be changed lapses on its own) and release is idempotent.
 */
export interface UploadHold { readonly bytes: number, settle (size: number): Promise<void>, release (): Promise<void> }

/** An upload on disk whose job is not created yet. */
export interface IncomingUpload { id: string, path: string, name: string, contentType: string, size: number, sha256: string, hold?: UploadHold }

/** What a job row keeps of its upload (jobs.upload, JSON). */
export interface StoredUpload { name: string, size: number, content_type: string }

export class JobWorkspace {
  constructor (private readonly root: string) {}

  private jobDir (jobId: string): string { return join(this.root, assertKeySegment(jobId)) }

  /** ctx.scratchDir: created on first use, private to the job. */
  async scratchDir (jobId: string): Promise<string> {
    const dir = join(this.jobDir(jobId), 'scratch')
    await mkdir(dir, { recursive: true, mode: 0o700 })
    return dir
  }

  /** The stored upload's path for the run. */
  uploadPath (jobId: string): string { return join(this.jobDir(jobId), 'upload', 'file') }

  /**
   * Streams an upload to `.incoming/` under `maxBytes` and the hold's bytes
   * (StoreSizeLimitError past either, nothing left behind, the hold released).
   */
  async receive (body: AsyncIterable<Uint8Array>, file: { name: string, contentType: string }, maxBytes: number, signal?: AbortSignal, hold?: UploadHold): Promise<IncomingUpload> {
    const id = randomUUID()
    let stored: StoredObject
    let path: string
    try {
      const dir = join(this.root, '.incoming')
      await mkdir(dir, { recursive: true, mode: 0o700 })
      path = join(dir, id)
      stored = await writeCapped(path, body, { maxBytes: Math.min(maxBytes, hold?.bytes ?? maxBytes), signal })
    } catch (err) {
      await hold?.release()
      throw err
    }
    await hold?.settle(stored.size)
    return { id, path, ...file, ...stored, ...(hold ? { hold } : {}) }
  }

  /** The upload becomes the job's (a rename: same disk). */
  async adopt (upload: IncomingUpload, jobId: string): Promise<void> {
    const dir = join(this.jobDir(jobId), 'upload')
    await mkdir(dir, { recursive: true, mode: 0o700 })
    await rename(upload.path, join(dir, 'file'))
    // The job row, created first, counts the file from now on (for a moment both count it, never neither).
    await upload.hold?.release()
  }

  /** An upload whose start was refused: the file and its hold go. */
  async discard (upload: IncomingUpload): Promise<void> {
    await rm(upload.path, { force: true })
    await upload.hold?.release()
  }

  /** Every ending: scratch and upload go. */
  async remove (jobId: string): Promise<void> {
    await rm(this.jobDir(jobId), { recursive: true, force: true })
  }

  /** Shutdown hand-back: the scratch goes, the upload stays for the resumed run. */
  async removeScratch (jobId: string): Promise<void> {
    await rm(join(this.jobDir(jobId), 'scratch'), { recursive: true, force: true })
  }

  /**
   * Leftovers: uploads of requests that died before their job existed, and
   * directories of jobs that are no longer running (a crash skipped their ending).
   */
  async sweep (isRunning: (jobIds: string[]) => Promise<Set<string>>, incomingMaxAgeMs: number, now: number): Promise<number> {
    let removed = 0
    const incoming = join(this.root, '.incoming')
    for (const name of await readdir(incoming).catch(() => [] as string[])) {
      const path = join(incoming, name)
      const info = await stat(path).catch(() => null)
      if (info && now - info.mtimeMs > incomingMaxAgeMs) { await rm(path, { force: true }); removed++ }
    }
    const jobIds = (await readdir(this.root).catch(() => [] as string[])).filter(n => !n.startsWith('.'))
    if (jobIds.length === 0) return removed
    const running = await isRunning(jobIds)
    for (const id of jobIds) {
      if (!running.has(id)) { await rm(join(this.root, id), { recursive: true, force: true }); removed++ }
    }
    return removed
  }
}

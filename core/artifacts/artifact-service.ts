// Job files as results: ctx.artifact writes through here (streamed, under the
// tier's caps, a row per file), the routes read through here, and the job's
// endings and the retention sweeper delete through here.
import { randomUUID } from 'node:crypto'
import type { Readable } from 'node:stream'
import type { Logger } from 'pino'
import type { Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import { MB, storedTier, tierLimits } from '../quotas/tiers.ts'
import { FileTooLargeError, type ArtifactFile, type ArtifactRef } from '../tools/contract.ts'
import { StoreSizeLimitError, type ArtifactStore, type ByteRange } from './artifact-store.ts'
import { asChunks } from './capped-write.ts'
import { safeContentType, safeFileName } from './file-names.ts'

/** The job fields a write needs. */
export interface ArtifactJob { id: string, accountId: string, tier: string }

export interface ArtifactRecord { id: string, jobId: string, accountId: string, name: string, contentType: string, size: number, sha256: string | null, createdAt: Date }

/** Where a stored file is downloaded: a path on this server, like status_url (README, Files). */
export const artifactUrl = (jobId: string, id: string) => `/api/tool-run/${jobId}/artifacts/${id}`

/** Bytes a job's files take; kept while the job runs here, so concurrent writes of one job share one count. */
interface JobBytes { used: number }

export class ArtifactService {
  private readonly usage = new Map<string, Promise<JobBytes>>()

  constructor (private readonly deps: { db: Db, artifactStore: ArtifactStore, clock: Clock, logger: Logger }) {}

  get store (): ArtifactStore { return this.deps.artifactStore }

  private jobBytes (jobId: string): Promise<JobBytes> {
    let entry = this.usage.get(jobId)
    if (!entry) {
      entry = this.deps.db.artifact.aggregate({ where: { jobId }, _sum: { size: true } }).then(r => ({ used: Number(r._sum.size ?? 0) }))
      this.usage.set(jobId, entry)
    }
    return entry
  }

  /** The run is over in this process: its count is dropped (the rows stay the truth). */
  endRun (jobId: string): void { this.usage.delete(jobId) }

  /**
   * Bytes the job's files take now, writes under way included: ctx.exec adds
   * the bytes of the job's scratch to it and holds the sum to max_job_files_mb
   * (core/exec/sandbox.ts), so scratch and stored files share one budget.
   */
  async storedBytes (jobId: string): Promise<number> {
    return (await this.jobBytes(jobId)).used
  }

  /**
   * ctx.artifact: streams the body into the store. Every chunk is counted
   * against the file cap and the job's remaining room (shared by the job's
   * concurrent writes); past either, the write stops, the partial file is
   * removed and FileTooLargeError says which limit of which tier.
   */
  async save (job: ArtifactJob, file: ArtifactFile, signal: AbortSignal): Promise<ArtifactRef> {
    try {
      return await this.write(job, file, signal)
    } catch (err) {
      // A body left unread (a stop before the write, a cap) is closed here: a file stream that
      // opens lazily would otherwise emit its error (the file gone with the scratch) to no listener.
      closeBody(file.body)
      throw err
    }
  }

  private async write (job: ArtifactJob, file: ArtifactFile, signal: AbortSignal): Promise<ArtifactRef> {
    const { db, artifactStore: store, clock } = this.deps
    // A file's time is when the tool asked to store it, read before the first await: files
    // written at once (a batch) keep the order the tool called in, whichever write ends first.
    const askedAt = clock()
    signal.throwIfAborted()
    const tier = storedTier(job.tier)
    const limits = tierLimits(tier)
    const fileCap = limits.max_file_mb * MB
    const jobCap = limits.max_job_files_mb * MB
    const name = safeFileName(file.name)
    const contentType = safeContentType(file.contentType)
    const bytes = await this.jobBytes(job.id)
    let mine = 0
    // The room is given back the moment a write fails, so a concurrent write of the job is not refused for bytes that will not stay.
    const release = () => { bytes.used -= mine; mine = 0 }
    const counted = async function * (source: AsyncIterable<Uint8Array>) {
      for await (const chunk of source) {
        mine += chunk.length
        bytes.used += chunk.length
        if (mine > fileCap) {
          release()
          throw new FileTooLargeError(`The file '${name}' is larger than the ${limits.max_file_mb} MB limit of the ${tier} tier; it was not kept.`, fileCap)
        }
        if (bytes.used > jobCap) {
          release()
          throw new FileTooLargeError(`The job's files passed the ${limits.max_job_files_mb} MB limit of the ${tier} tier; the file '${name}' was not kept.`, jobCap)
        }
        yield chunk
      }
    }
    const id = randomUUID()
    const key = `${job.id}/${id}`
    let stored
    try {
      stored = await store.put(key, counted(asChunks(file.body)), { maxBytes: fileCap, signal })
    } catch (err) {
      release()
      if (err instanceof StoreSizeLimitError) throw new FileTooLargeError(`The file '${name}' is larger than the ${limits.max_file_mb} MB limit of the ${tier} tier; it was not kept.`, fileCap)
      // An abort reads as the job's own reason (cancel, timeout), not the stream's AbortError.
      if (signal.aborted) throw signal.reason
      throw err
    }
    try {
      await db.artifact.create({ data: { id, jobId: job.id, accountId: job.accountId, name, contentType, size: stored.size, sha256: stored.sha256, createdAt: askedAt } })
    } catch (err) {
      release()
      await store.delete(key).catch(() => {})
      throw err
    }
    return { id, url: artifactUrl(job.id, id), name, size: stored.size, contentType }
  }

  async list (jobId: string): Promise<ArtifactRecord[]> {
    // In the order the tool asked to store them (ties by name): rows' order when the tool stores in it.
    return this.deps.db.artifact.findMany({ where: { jobId }, orderBy: [{ createdAt: 'asc' }, { name: 'asc' }, { id: 'asc' }] })
  }

  async find (jobId: string, id: string): Promise<ArtifactRecord | null> {
    return this.deps.db.artifact.findFirst({ where: { id, jobId } })
  }

  open (record: ArtifactRecord, range?: ByteRange): Promise<Readable> {
    return this.deps.artifactStore.get(`${record.jobId}/${record.id}`, range)
  }

  /** Files first, then rows: a row never points at nothing for long, and a failure leaves rows to retry from. */
  async deleteForJob (jobId: string): Promise<void> {
    await this.deps.artifactStore.deleteJob(jobId)
    await this.deps.db.artifact.deleteMany({ where: { jobId } })
    this.usage.delete(jobId)
  }
}

/** Ends a body nobody will read, whatever its kind; its late errors are dropped. */
function closeBody (body: ArtifactFile['body']): void {
  if (body instanceof Uint8Array) return
  const stream = body as Partial<NodeJS.ReadableStream & { destroy (): void, destroyed: boolean }>
  if (typeof stream.destroy === 'function') {
    stream.on?.('error', () => {})
    if (!stream.destroyed) stream.destroy()
    return
  }
  const iterator = body as AsyncIterable<Uint8Array> & { return?: () => Promise<unknown> }
  void Promise.resolve(iterator.return?.()).catch(() => {})
}

// The artifact tests run on each store behind ArtifactStore: the directory
// (ARTIFACTS_DIR) and an S3-compatible bucket (a local stand-in, under a key
// prefix). `jobFiles` says what the store holds for a job, whichever it is.
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { startS3StandIn, type S3StandIn } from './s3-stand-in.ts'

export const ARTIFACT_STORE_KINDS = ['directory', 's3'] as const
export type ArtifactStoreKind = typeof ARTIFACT_STORE_KINDS[number]

export interface ArtifactStoreUnderTest {
  kind: ArtifactStoreKind
  /** Env for build(t): empty for the directory, the ARTIFACTS_S3_* settings for the bucket. */
  env: Record<string, string>
  /** The artifact ids the store holds for a job (no staging or partial file). */
  jobFiles (app: FastifyInstance, jobId: string): string[]
  /** The bucket, for the S3 store. */
  bucket: S3StandIn | null
}

const PREFIX = 'tenant-a/files/'

export async function artifactStoreUnderTest (t: { teardown (fn: () => unknown): void }, kind: ArtifactStoreKind): Promise<ArtifactStoreUnderTest> {
  if (kind === 'directory') {
    return {
      kind,
      env: {},
      bucket: null,
      jobFiles: (app, jobId) => {
        const dir = join(app.services.config.artifactsDir, jobId)
        return existsSync(dir) ? readdirSync(dir) : []
      },
    }
  }
  const bucket = await startS3StandIn(t, { prefix: PREFIX })
  return {
    kind,
    env: bucket.env,
    bucket,
    jobFiles: (app, jobId) => {
      // Nothing of a job may sit in ARTIFACTS_DIR when the bucket is the store.
      if (existsSync(join(app.services.config.artifactsDir, jobId))) throw new Error(`job ${jobId} has files in ARTIFACTS_DIR while the store is S3`)
      return bucket.keys(`${PREFIX}${jobId}/`).map(k => k.slice(`${PREFIX}${jobId}/`.length))
    },
  }
}

// The three tiers of the spec and the limits they carry.
export type TierName = 'guest' | 'registered' | 'pro'

export interface TierLimits {
  max_records_per_run: number
  calls_per_day: number
  calls_per_month: number
  retention_hours: number
  /** Jobs of one account the scheduler runs at once; the rest wait their turn (core/jobs/job-queue.ts). */
  max_running_jobs: number
  /** Jobs of one account waiting behind its running ones; a start beyond running + queued is 429. */
  max_queued_jobs: number
  /** The largest one file of a job may be, in MB (ctx.artifact, an upload): past it the write stops and the file is gone. */
  max_file_mb: number
  /** All the files one job stores together, in MB (its artifacts; the upload is counted by max_file_mb alone). */
  max_job_files_mb: number
  /** Uploads one account holds at once, in MB: those of its unfinished jobs plus those still arriving (core/artifacts/upload-budget.ts). */
  max_pending_uploads_mb: number
  /** Monitors one account keeps (core/monitors); 0: none. */
  max_monitors: number
  /** The shortest interval between a monitor's runs, in minutes (its schedule's ticks may not come closer). */
  min_monitor_interval_minutes: number
}

// Job caps (not in the spec): enough for a dashboard or an agent to fan out a
// little, small enough that one account cannot fill every slot of the process.
// File caps (not in the spec): a registered account can keep a few minutes of
// HD video or a few hundred frames per job; the disk a busy pro account can
// hold is bounded by files per job × jobs kept for the retention window.
// Pending uploads (not in the spec): (running jobs + 1) × the file cap, so
// every running slot can work on a largest file while one more waits its
// turn (or many smaller ones wait); parking a largest file behind every
// queued slot (20 × 100 MB, 100 × 500 MB) would let a free signup fill the disk.
// Monitors (not in the spec): guests keep none; the shortest interval keeps a
// registered account's monitors within its calls per day (24 runs of one hourly
// monitor out of 50), a pro account's five-minute watch costs 288 calls a day.
const table: Record<TierName, { maxRecords: number, perDay: number, retentionHours: number, maxRunning: number, maxQueued: number, fileMb: number, jobFilesMb: number, pendingUploadsMb: number, monitors: number, monitorMinutes: number }> = {
  guest: { maxRecords: 20, perDay: 5, retentionHours: 2, maxRunning: 1, maxQueued: 2, fileMb: 25, jobFilesMb: 50, pendingUploadsMb: 50, monitors: 0, monitorMinutes: 0 },
  registered: { maxRecords: 200, perDay: 50, retentionHours: 6, maxRunning: 2, maxQueued: 20, fileMb: 100, jobFilesMb: 250, pendingUploadsMb: 300, monitors: 10, monitorMinutes: 60 },
  pro: { maxRecords: 1000, perDay: 500, retentionHours: 24, maxRunning: 4, maxQueued: 100, fileMb: 500, jobFilesMb: 2000, pendingUploadsMb: 2500, monitors: 100, monitorMinutes: 5 },
}

export function tierLimits (tier: TierName): TierLimits {
  const t = table[tier]
  // DECISIONS.md: calls per month = 30 × calls per day.
  return {
    max_records_per_run: t.maxRecords,
    calls_per_day: t.perDay,
    calls_per_month: 30 * t.perDay,
    retention_hours: t.retentionHours,
    max_running_jobs: t.maxRunning,
    max_queued_jobs: t.maxQueued,
    max_file_mb: t.fileMb,
    max_job_files_mb: t.jobFilesMb,
    max_pending_uploads_mb: t.pendingUploadsMb,
    max_monitors: t.monitors,
    min_monitor_interval_minutes: t.monitorMinutes,
  }
}

export const PRO_WINDOW_DAYS = 30
export const PRO_ELIGIBLE_SIGNUPS = 100

/** The tier an account has now: a Pro window that has passed reads `registered`. */
export function effectiveTier (account: { tier: string, proExpiresAt: Date | null }, now: Date): TierName {
  if (account.tier === 'pro') return account.proExpiresAt && account.proExpiresAt.getTime() > now.getTime() ? 'pro' : 'registered'
  return 'registered'
}

export const MB = 1024 * 1024

/** A tier name read back from a stored job (an unknown value reads as the middle tier). */
export function storedTier (value: string): TierName {
  return value === 'guest' || value === 'pro' ? value : 'registered'
}

// What the rest of the kernel may ask of the jobs this process is running
// (JobRunner implements it): status reads overlay the live figures, a cancel
// stops the run here before the ending, and the reaper leaves alone what a
// live runner holds. Nothing else of a run is reachable from outside it.
import type { LiveOverlay } from './job-view.ts'

export interface RunningJobs {
  /** Stage and row count of a job running in this process, as they are now (stored only on the heartbeat); undefined elsewhere. */
  progressOf (jobId: string): LiveOverlay | undefined
  /**
   * Stops a job running in this process and resolves once its run has ended
   * it (rows and counters flushed, through JobEnding); false when it is not
   * running here.
   */
  cancel (jobId: string): Promise<boolean>
  /** Whether a run in this process holds the job. */
  isRunningHere (jobId: string): boolean
}

// ctx.extract for one job: the Extraction interface of the plugin contract over
// the app's extraction pool, every task bound to the job's abort signal, each
// task's outcome counted (core/metrics: extraction_tasks_total).
import { ExtractionError, type Extraction } from '../tools/contract.ts'
import type { ExtractionOutcome, Metrics } from '../metrics/metrics.ts'
import type { ExtractionPool } from './extraction-pool.ts'

export function createExtraction (pool: ExtractionPool, signal: AbortSignal, metrics?: Pick<Metrics, 'extractionTasks'>): Extraction {
  if (!metrics) return over(pool, signal, task => task)
  return over(pool, signal, task => task.then(
    (value: unknown) => { metrics.extractionTasks.inc({ outcome: 'ok' }); return value },
    (err: unknown) => {
      const outcome: ExtractionOutcome = err instanceof ExtractionError ? err.reason : signal.aborted ? 'cancelled' : 'failed'
      metrics.extractionTasks.inc({ outcome })
      throw err
    }))
}

function over (pool: ExtractionPool, signal: AbortSignal, counted: (task: Promise<unknown>) => Promise<unknown>): Extraction {
  return {
    call: <T>(module: URL, name: string, args: unknown[]) => counted(pool.run({ kind: 'call', module: module.href, name, args }, signal)) as Promise<T>,
    ready: (modules: URL[] = []) => pool.warm(modules.map(module => module.href), signal),
  }
}

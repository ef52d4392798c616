// ctx.extract for one job: the Extraction interface of the plugin contract over
// the app's extraction pool, every task bound to the job's abort signal.
import type { Extraction } from '../tools/contract.ts'
import type { ExtractionPool } from './extraction-pool.ts'

export function createExtraction (pool: ExtractionPool, signal: AbortSignal): Extraction {
  return {
    call: <T>(module: URL, name: string, args: unknown[]) => pool.run({ kind: 'call', module: module.href, name, args }, signal) as Promise<T>,
    ready: (modules: URL[] = []) => pool.warm(modules.map(module => module.href), signal),
  }
}

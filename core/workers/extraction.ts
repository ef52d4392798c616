// ctx.extract for one job: the Extraction interface of the plugin contract over
// the app's extraction pool, every task bound to the job's abort signal.
import type { Extraction } from '../tools/contract.ts'
import type { ExtractionPool } from './extraction-pool.ts'
import type { ExtractionTask } from './extraction-tasks.ts'

export function createExtraction (pool: ExtractionPool, signal: AbortSignal): Extraction {
  const run = <T>(task: ExtractionTask) => pool.run(task, signal) as Promise<T>
  return {
    page: (html, url) => run({ kind: 'page', html, url }),
    contacts: (html, url, options = {}) => run({ kind: 'contacts', html, url, options }),
    emails: (html, url) => run({ kind: 'emails', html, url }),
    phones: (html, options = {}) => run({ kind: 'phones', html, defaultCountry: options.defaultCountry }),
    socials: (html, url) => run({ kind: 'socials', html, url }),
    call: <T>(module: URL, name: string, args: unknown[]) => run<T>({ kind: 'call', module: module.href, name, args }),
    ready: () => pool.warm(signal),
  }
}

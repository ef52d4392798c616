// The extraction pool's worker entry (piscina calls the default export once per
// task). Plain JavaScript so it loads in any worker: when the task module it is
// given (workerData.tasksModule, named in extraction-pool.ts) is TypeScript, it
// registers tsx for this thread first. Inheriting the parent's `--import tsx` is
// not enough on Node 20: the entry's static imports load, but a dynamic import()
// of a .ts file inside the worker (a plugin's parser module) fails with
// ERR_UNKNOWN_FILE_EXTENSION. A compiled build passes a .js tasks module and
// nothing is registered.
import { workerData } from 'piscina'

const { tasksModule } = workerData
if (tasksModule.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api')
  register()
}
const { settleExtractionTask } = await import(tasksModule)

/**
 * `started` is shared with the pool: the time the parsing starts goes there, so a
 * task's time limit counts from then, not from the worker's boot or the loading of
 * the task's modules (the DOM and phone libraries take seconds on a busy machine).
 */
export default function extractionWorker ({ task, started }) {
  return settleExtractionTask(task, () => { new Float64Array(started)[0] = Date.now() })
}

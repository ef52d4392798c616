// Memory readings shared by the benchmarks under tsx (harness.ts re-exports
// them) and the plain JavaScript ones that run the compiled service (dist/),
// which cannot import TypeScript.
import { Worker } from 'node:worker_threads'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

let gcFn
/** A full GC when the process can be given one (--expose-gc set at runtime). */
export function collectGarbage () {
  if (!gcFn) {
    setFlagsFromString('--expose-gc')
    gcFn = runInNewContext('gc')
  }
  gcFn()
}

/**
 * Samples process RSS every `intervalMs` from a worker thread, so the samples
 * keep coming while the main event loop is busy (RSS is per process).
 * @returns {{ stop (): Promise<{ peak: number, samples: number }> }}
 */
export function startRssSampler (intervalMs = 50) {
  const shared = new Int32Array(new SharedArrayBuffer(12))
  const worker = new Worker(`
    const { workerData } = require('node:worker_threads')
    const s = workerData
    const tick = () => {
      const mb16 = Math.ceil(process.memoryUsage.rss() / 65536)
      if (mb16 > Atomics.load(s, 0)) Atomics.store(s, 0, mb16)
      Atomics.add(s, 1, 1)
      if (Atomics.load(s, 2) === 0) setTimeout(tick, ${intervalMs})
    }
    tick()
  `, { eval: true, workerData: shared })
  return {
    async stop () {
      Atomics.store(shared, 2, 1)
      await worker.terminate()
      return { peak: Atomics.load(shared, 0) * 65536, samples: Atomics.load(shared, 1) }
    },
  }
}

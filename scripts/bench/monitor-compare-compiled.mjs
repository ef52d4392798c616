// The timed part of monitors.ts's comparison, run on the compiled service
// (dist/, as `npm start` runs it: the parent gives it npm start's node flags
// and glibc settings), so the peak RSS is the service's and not tsx's: a
// fresh app on the fixture's database compares the second run with the first.
// Plain JavaScript because it imports dist/ with no TypeScript loader. Prints
// one JSON line: time, counts, RSS before and at its peak, the JS heap's
// share of the peak. BENCH_HEAP_SNAPSHOTS=<ms>,<ms>… writes a heap snapshot
// (live objects only: V8 collects first) that many milliseconds into the
// comparison, into BENCH_HEAP_SNAPSHOT_DIR (default: the system's temp folder).
import { existsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeHeapSnapshot } from 'node:v8'
import { collectGarbage, startRssSampler } from './memory.mjs'

const compiledApp = new URL('../../dist/core/app.js', import.meta.url)
if (!existsSync(compiledApp)) throw new Error('dist/core/app.js is missing: run `npm run build` first')
const { buildApp } = await import(compiledApp.href)

const fixture = JSON.parse(process.env.BENCH_COMPARE ?? '{}')
// Only the compared tool: the fixture's own tools config also names the test-only counter, TypeScript.
const toolsConfig = join(fixture.dir, 'tools.compiled.config.json')
writeFileSync(toolsConfig, JSON.stringify({ tools: [{ key: 'products', plugin: 'products', enabled: true }], retired: [] }))
const app = await buildApp({
  env: {
    DATA_DIR: fixture.dir,
    DATABASE_URL: `file:${join(fixture.dir, 'app.db')}`,
    LOG_LEVEL: 'error',
    SECRET_KEY: 'bench-secret-key-0123456789',
    TOOLS_CONFIG: toolsConfig,
  },
})
try {
  await app.ready()
  collectGarbage()
  const before = process.memoryUsage.rss()
  const sampler = startRssSampler()
  // The JS heap's share of the peak, sampled between the comparison's awaits.
  const heap = { used: 0, total: 0, external: 0 }
  const heapTimer = setInterval(() => {
    const m = process.memoryUsage()
    heap.used = Math.max(heap.used, m.heapUsed)
    heap.total = Math.max(heap.total, m.heapTotal)
    heap.external = Math.max(heap.external, m.external)
  }, 100)
  const snapshotDir = process.env.BENCH_HEAP_SNAPSHOT_DIR ?? tmpdir()
  const snapshotTimers = (process.env.BENCH_HEAP_SNAPSHOTS ?? '').split(',').filter(Boolean).map(Number).map(ms =>
    setTimeout(() => {
      const at = performance.now() - started
      const used = process.memoryUsage().heapUsed
      console.error(`heap snapshot at ${at.toFixed(0)} ms (heap ${(used / 1048576).toFixed(1)} MB used): ${writeHeapSnapshot(join(snapshotDir, `monitor-compare-${ms}.heapsnapshot`))}`)
    }, ms))
  const started = performance.now()
  const counts = JSON.parse(await app.services.monitorRuns.compare({ id: fixture.runId, monitorId: fixture.monitorId }))
  const ms = performance.now() - started
  clearInterval(heapTimer)
  for (const timer of snapshotTimers) clearTimeout(timer)
  const { peak } = await sampler.stop()
  console.log(JSON.stringify({ ms, counts, before, peak, heap }))
} finally {
  await app.close()
}

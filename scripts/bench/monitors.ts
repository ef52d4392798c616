// Benchmark (monitors, core/monitors): two figures.
//
// 1. Tick lateness: BENCH_MONITORS (10,000) monitors on one-minute schedules,
//    fired by one process ("one worker"), each tick a real job start (counter
//    tool, one row): by default the database scheduler (no REDIS_URL); with
//    BENCH_REDIS_URL the cluster's, BullMQ job schedulers on that Redis (the
//    process runs with REDIS_URL and RUN_JOBS=1, a key prefix of its own; the
//    monitors are put in Redis by a restart, whose start-up is timed). The
//    monitors are written straight into the database (100 Pro accounts of 100
//    monitors: a plan's cap), with `every: 1m` (below any plan's shortest
//    interval, which the API would refuse). Lateness is the tick's run start
//    (its job's created_at) minus the tick's time, over every tick of
//    BENCH_MINUTES minutes. The machine's load average is printed (shared
//    machines: a figure without its load says little).
// 2. The comparison of two 100,000-row runs (BENCH_ROWS): two jobs of one
//    monitor with product-like rows written into result_rows (the second: 1 %
//    removed, 1 % added, 2 % with a changed price), the first compared (the
//    baseline written), then the second timed on the compiled service
//    (monitor-compare-compiled.mjs; `npm run build` first), with the process's
//    peak RSS sampled from a worker thread.
//
// Run: node --import tsx scripts/bench/monitors.ts
// Goals: tick lateness p99 < 60 s (a one-minute schedule keeps up); the
// comparison's peak RSS < 200 MB. Exits non-zero only on errors.
import { randomBytes, randomUUID } from 'node:crypto'
import { loadavg } from 'node:os'
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { COUNTER_PLUGIN, REPO, goal, mb, percentile, printTable, runMain, startBenchApp } from './harness.ts'
import { startCommand, startEnvironment } from './server-process.ts'

const MONITORS = Number(process.env.BENCH_MONITORS ?? 10_000)
const MINUTES = Number(process.env.BENCH_MINUTES ?? 1)
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const PER_ACCOUNT = 100
const COMPARE_TOOLS = [{ key: 'counter', plugin: COUNTER_PLUGIN, enabled: true }, { key: 'products', plugin: 'products', enabled: true }]

/** The one-minute load average, sampled: its lowest and highest while the ticks are measured. */
function loadRange () {
  let low = Infinity
  let high = 0
  const sample = () => { const l = loadavg()[0]!; low = Math.min(low, l); high = Math.max(high, l) }
  sample()
  return { sample, text: () => `${low.toFixed(1)}–${high.toFixed(1)}` }
}

async function tickLateness (): Promise<void> {
  const redisUrl = process.env.BENCH_REDIS_URL
  const tools = [{ key: 'counter', plugin: COUNTER_PLUGIN, enabled: true }]
  // The cluster's path: one process that runs jobs (RUN_JOBS=1) with the embedded queue's concurrency (JOB_CONCURRENCY's default, 4).
  const env: Record<string, string> = redisUrl ? { REDIS_URL: redisUrl, RUN_JOBS: '1', WORKER_CONCURRENCY: '4', REDIS_KEY_PREFIX: `bench${randomBytes(4).toString('hex')}` } : {}
  const load = loadRange()
  console.log(`scheduler: ${redisUrl ? 'BullMQ job schedulers (REDIS_URL)' : 'the database scheduler (no REDIS_URL)'}; load average ${loadavg().map(l => l.toFixed(2)).join(' ')}`)
  let bench = await startBenchApp(tools, env, { keep: Boolean(redisUrl) })
  let db = bench.app.services.db
  try {
    const now = Date.now()
    // The cluster's start-up (every scheduler put back) comes before the first tick: a minute's margin.
    const firstTick = new Date((Math.floor((now + (redisUrl ? 60_000 : 0)) / 60_000) + 1) * 60_000)
    const accounts = Math.ceil(MONITORS / PER_ACCOUNT)
    for (let a = 0; a < accounts; a++) {
      const accountId = randomUUID()
      await db.account.create({ data: { id: accountId, email: `bench-${accountId}@example.com`, passwordHash: 'x', tier: 'pro', signupNumber: a + 1000, proExpiresAt: new Date(now + 86_400_000), createdAt: new Date(now), updatedAt: new Date(now) } })
      const count = Math.min(PER_ACCOUNT, MONITORS - a * PER_ACCOUNT)
      await db.monitor.createMany({
        data: Array.from({ length: count }, () => ({ id: randomUUID(), accountId, name: 'bench', tool: 'counter', params: '{"max_results":1}', schedule: '{"every":"1m"}', nextRunAt: firstTick, createdAt: new Date(now), updatedAt: new Date(now) })),
      })
    }
    if (redisUrl) {
      // Written behind the scheduler's back: a restart puts every monitor's job scheduler in Redis, as after a Redis that restarted empty.
      await bench.close()
      const started = performance.now()
      bench = await startBenchApp(tools, env, { dir: bench.dir })
      db = bench.app.services.db
      const late = Date.now() > firstTick.getTime() ? ' (after the first tick: its lateness counts the start-up)' : ''
      console.log(`start-up with ${MONITORS} monitors (every job scheduler put back): ${((performance.now() - started) / 1000).toFixed(1)} s${late}`)
    } else {
      // Wake the scheduler: the monitors were written behind its back.
      void (bench.app.services.monitorScheduler as unknown as { scheduled (): Promise<void> }).scheduled()
    }
    // Each batch the scheduler fires (fireDueBatch, both paths): when, how many, how long.
    const batches: Array<{ at: number, size: number, ms: number }> = []
    const { monitors } = bench.app.services
    const fireDueBatch = monitors.fireDueBatch.bind(monitors)
    monitors.fireDueBatch = async (batch, now) => {
      const started = performance.now()
      const at = Date.now()
      try { return await fireDueBatch(batch, now) } finally { if (batch.length) batches.push({ at, size: batch.length, ms: performance.now() - started }) }
    }
    const lastTick = new Date(firstTick.getTime() + (MINUTES - 1) * 60_000)
    console.log(`${MONITORS} monitors; ticks from ${firstTick.toISOString()} to ${lastTick.toISOString()}`)
    const expected = MONITORS * MINUTES
    const deadline = lastTick.getTime() + 10 * 60_000
    for (;;) {
      const done = await db.monitorTick.count({ where: { scheduledFor: { gte: firstTick, lte: lastTick } } })
      const settled = await db.monitorTick.count({ where: { scheduledFor: { gte: firstTick, lte: lastTick }, OR: [{ jobId: { not: null } }, { skipped: { not: null } }] } })
      const late = await db.monitorTick.count({ where: { scheduledFor: { gt: lastTick, lte: new Date(lastTick.getTime() + 60_000) }, trigger: 'missed', OR: [{ jobId: { not: null } }, { skipped: { not: null } }] } })
      load.sample()
      // Or, two minutes after the last tick, once every monitor has run since the first (a tick fired after its next came is that one's, not said missed).
      const caughtUp = Date.now() > lastTick.getTime() + 120_000 && (await db.job.groupBy({ by: ['monitorId'], where: { monitorId: { not: null }, createdAt: { gte: firstTick } } })).length >= MONITORS
      if (settled + late >= expected || caughtUp || Date.now() > deadline) { console.log(`ticks recorded ${done}, settled ${settled} of ${expected}`); break }
      await new Promise(resolve => setTimeout(resolve, 2000))
    }
    const ticks = await db.monitorTick.findMany({ where: { scheduledFor: { gte: firstTick, lte: lastTick } }, select: { scheduledFor: true, jobId: true, skipped: true, trigger: true } })
    const jobs = await db.job.findMany({ where: { id: { in: ticks.flatMap(t => (t.jobId ? [t.jobId] : [])) } }, select: { id: true, createdAt: true } })
    const created = new Map(jobs.map(j => [j.id, j.createdAt.getTime()]))
    const lateness = ticks.flatMap(t => (t.jobId && created.has(t.jobId) ? [(created.get(t.jobId)! - t.scheduledFor.getTime()) / 1000] : [])).sort((a, b) => a - b)
    const runs = await db.job.count({ where: { monitorId: { not: null } } })
    // A monitor whose first tick's pass came more than a minute late fires a later tick (said missed), outside the window
    // above: each monitor's first run after the first tick, against that tick, counts those too.
    const firstRuns = await db.job.groupBy({ by: ['monitorId'], where: { monitorId: { not: null }, createdAt: { gte: firstTick } }, _min: { createdAt: true } })
    const firstLateness = firstRuns.map(r => (r._min.createdAt!.getTime() - firstTick.getTime()) / 1000).sort((a, b) => a - b)
    printTable('each monitor\'s first run after the first tick (s): run start − first tick', [
      ['monitors', 'with a run', 'p50', 'p99', 'max'],
      [MONITORS, firstRuns.length, percentile(firstLateness, 50).toFixed(2), percentile(firstLateness, 99).toFixed(2), (firstLateness[firstLateness.length - 1] ?? NaN).toFixed(2)],
    ])
    printTable(`tick lateness (s): run start − tick (${redisUrl ? 'BullMQ' : 'database'} scheduler)`, [
      ['monitors', 'ticks', 'runs', 'skipped', 'missed', 'p50', 'p99', 'max'],
      [MONITORS, ticks.length, runs, ticks.filter(t => t.skipped).length, ticks.filter(t => t.trigger === 'missed').length,
        percentile(lateness, 50).toFixed(2), percentile(lateness, 99).toFixed(2), (lateness[lateness.length - 1] ?? NaN).toFixed(2)],
    ])
    // The batches of the window's minute(s): how the ticks were taken and fired.
    const inWindow = batches.filter(b => b.at >= firstTick.getTime() && b.at < lastTick.getTime() + 60_000)
    const sizes = inWindow.map(b => b.size).sort((a, b) => a - b)
    const firing = inWindow.reduce((sum, b) => sum + b.ms, 0)
    console.log(`batches fired from the first tick to a minute after the last: ${inWindow.length}, ${sizes.reduce((a, b) => a + b, 0)} ticks (size p50 ${percentile(sizes, 50)}, max ${sizes[sizes.length - 1] ?? 0}), ${(firing / 1000).toFixed(1)} s in fireDueBatch, the last one begun ${inWindow.length ? ((inWindow[inWindow.length - 1]!.at - firstTick.getTime()) / 1000).toFixed(1) : '–'} s after the first tick`)
    console.log(`load average (1 min) while measured: ${load.text()}`)
    // Met only when every tick of the window is a run: a monitor reached after its next tick came fires that one instead (missed).
    goal('every tick one run, p99 lateness < 60 s', ticks.filter(t => t.jobId).length === expected && percentile(lateness, 99) < 60)
  } finally {
    await bench.close()
  }
}

function productRow (i: number, price: number): Record<string, unknown> {
  return {
    store_url: 'https://shop.example', platform: 'shopify', id: String(i), title: `Product ${i} with a name of ordinary length`, url: `https://shop.example/products/p-${i}`,
    handle: `p-${i}`, sku: `SKU-${i}`, brand: 'Acme', product_type: 'Thing', categories: ['a', 'b'], tags: ['x', 'y', 'z'],
    description: 'A product description of a few sentences, as a store writes them. '.repeat(4), price, price_max: price, compare_at_price: null, currency: 'EUR',
    available: true, stock_status: 'in_stock', stock_quantity: null, images: [`https://cdn.example/${i}.jpg`], options: [], variants: [], add_ons: [],
    rating: null, review_count: null, created_at: null, updated_at: null, source_url: 'https://shop.example/products.json',
  }
}

/** Writes the two runs and makes the first the baseline; the app is closed, its directory kept for the timed part. */
async function writeComparisonFixture (): Promise<{ dir: string, monitorId: string, runId: string }> {
  const bench = await startBenchApp(COMPARE_TOOLS, {}, { keep: true })
  const { db, monitorRuns } = bench.app.services
  try {
    const now = new Date()
    const accountId = randomUUID()
    await db.account.create({ data: { id: accountId, email: `bench-${accountId}@example.com`, passwordHash: 'x', tier: 'pro', signupNumber: 1, createdAt: now, updatedAt: now } })
    const monitorId = randomUUID()
    await db.monitor.create({ data: { id: monitorId, accountId, name: 'bench', tool: 'products', params: '{"url":"https://shop.example"}', schedule: '{"every":"1d"}', createdAt: now, updatedAt: now } })
    const runs: string[] = []
    const started = performance.now()
    for (const second of [false, true]) {
      const id = randomUUID()
      runs.push(id)
      await db.job.create({ data: { id, accountId, tool: 'products', status: 'running', input: '{}', retentionHours: 24, maxRecords: ROWS, monitorId, createdAt: now } })
      for (let start = 0; start < ROWS; start += 1000) {
        const data = []
        for (let i = start; i < Math.min(ROWS, start + 1000); i++) {
          // The second run: the first 1 % gone, 1 % new at the end, every 50th price changed.
          const n = second ? i + ROWS / 100 : i
          const price = second && n % 50 === 0 ? 20 : 10
          data.push({ jobId: id, seq: i, data: JSON.stringify(productRow(n, price)) })
        }
        await db.resultRow.createMany({ data })
      }
      await db.job.update({ where: { id }, data: { status: 'done', records: ROWS } })
    }
    console.log(`fixture: ${2 * ROWS} rows written in ${((performance.now() - started) / 1000).toFixed(0)} s`)
    // The first run becomes the baseline as JobEnding would make it: compared, then settled.
    const first = { id: runs[0]!, monitorId }
    const baselineStarted = performance.now()
    await monitorRuns.compare(first)
    await db.$transaction(tx => monitorRuns.settle(tx as typeof db, first, { status: 'done', error: null, compared: true }))
    await monitorRuns.settled(first, { landed: true, compared: true, paused: false })
    console.log(`first run (no baseline) compared in ${((performance.now() - baselineStarted) / 1000).toFixed(1)} s`)
    return { dir: bench.dir, monitorId, runId: runs[1]! }
  } finally {
    await bench.close()
  }
}

async function comparison (): Promise<void> {
  const fixture = await writeComparisonFixture()
  try {
    // The comparison's own process: the compiled service (dist/), started with `npm start`'s node flags and glibc settings.
    const [node, ...startFlags] = startCommand().slice(0, -1)
    const child = spawnSync(node!, [...startFlags, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), join(import.meta.dirname, 'monitor-compare-compiled.mjs')], {
      cwd: REPO,
      env: { ...process.env, ...startEnvironment(), BENCH_COMPARE: JSON.stringify(fixture) },
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    })
    const line = child.stdout.trim().split('\n').pop() ?? ''
    if (child.status !== 0 || !line.startsWith('{')) throw new Error(`the comparison's process failed (${child.status}): ${child.stdout}`)
    const r = JSON.parse(line) as { ms: number, counts: Record<string, number>, before: number, peak: number, heap: { used: number, total: number, external: number } }
    printTable(`comparing two ${ROWS.toLocaleString('en')}-row runs (a process of its own)`, [
      ['rows', 'ms', 'rows/s', 'added', 'removed', 'changed', 'RSS before MB', 'peak RSS MB', 'growth MB'],
      [ROWS, r.ms.toFixed(0), Math.round(ROWS / (r.ms / 1000)), r.counts.added!, r.counts.removed!, r.counts.changed!, mb(r.before), mb(r.peak), mb(r.peak - r.before)],
    ])
    console.log(`JS heap during the comparison: at most ${mb(r.heap.used)} MB used, ${mb(r.heap.total)} MB reserved, ${mb(r.heap.external)} MB external`)
    const exact = r.counts.added === ROWS / 100 && r.counts.removed === ROWS / 100 && r.counts.changed === ROWS / 50 - (ROWS / 100) / 50
    goal('counts exact, peak RSS < 200 MB', exact && r.peak < 200 * 1024 * 1024)
  } finally {
    // Kept, the timed part can be rerun alone on it (a rerun of a comparison starts from nothing).
    if (process.env.BENCH_KEEP_FIXTURE) console.log(`fixture kept: BENCH_COMPARE='${JSON.stringify(fixture)}'`)
    else rmSync(fixture.dir, { recursive: true, force: true })
  }
}

runMain(async () => {
  if (process.env.BENCH_PART !== 'ticks') await comparison()
  if (process.env.BENCH_PART !== 'compare') await tickLateness()
})

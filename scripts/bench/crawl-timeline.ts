// Where a crawler's time goes (crawl.ts, BENCH_TIMELINE=1): wraps crawlee's own
// methods on their prototypes, so the bare CheerioCrawler and the service's
// HttpCrawler (core/net/crawler-factory.ts) are measured by the same probes,
// without either being written differently for the measure. Sums of wall time
// per phase, and the pool's concurrency sampled every 50 ms.
//
// Each crawler's pool has C task slots (its maxConcurrency) for the length of
// its run W: W × C slot-ms (the service's crawler runs twice its fetch limit in
// tasks, core/net/README.md). A slot is either idle (the pool did not start a task: ramp-up from
// minConcurrency, an overload signal, nothing ready) or held by a task, whose
// time is split into: fetching the next request from the queue, getting a
// session, the navigation (pre-navigation hooks, the HTTP request until the
// response headers, post-navigation hooks), reading and parsing the body,
// the tool's handler (of which: awaiting `addRequests`), marking the request
// handled. Phases overlap other tasks' phases; the sums are slot-time, not
// wall time. The wrappers cost a few microseconds a call; only installed when asked.
import { createRequire } from 'node:module'

type Phase = 'task' | 'fetchNext' | 'session' | 'navigation' | 'parse' | 'requestHandler' | 'addRequests' | 'markHandled'
const PHASES: Phase[] = ['task', 'fetchNext', 'session', 'navigation', 'parse', 'requestHandler', 'addRequests', 'markHandled']

export interface CrawlTimeline {
  /** Starts a measured window (one crawl); `stop()` returns its breakdown rows. */
  start (): { stop (): Array<Array<string | number>> }
}

/** Installs the probes on crawlee's prototypes (the copies crawlee itself resolves, as the kernel's factory does). */
export function installCrawlTimeline (): CrawlTimeline {
  const fromCrawlee = createRequire(createRequire(import.meta.url).resolve('crawlee'))
  const { BasicCrawler } = fromCrawlee('@crawlee/basic')
  const { HttpCrawler } = fromCrawlee('@crawlee/http')
  const { RequestProvider, SystemStatus, AutoscaledPool } = fromCrawlee('@crawlee/core')

  let sums: Record<Phase, number> = Object.fromEntries(PHASES.map(p => [p, 0])) as Record<Phase, number>
  let counts: Record<Phase, number> = Object.fromEntries(PHASES.map(p => [p, 0])) as Record<Phase, number>
  let overloaded = 0
  let statusChecks = 0
  const pools = new Set<{ desiredConcurrency: number, currentConcurrency: number, maxConcurrency: number }>()
  /** The largest pool (its maxConcurrency: task slots) seen in the window. */
  let poolSlots = 0

  const wrap = (proto: Record<string, unknown>, method: string, phase: Phase): void => {
    const original = proto[method] as (...args: unknown[]) => Promise<unknown>
    proto[method] = async function (this: unknown, ...args: unknown[]) {
      const t0 = performance.now()
      try {
        return await original.apply(this, args)
      } finally {
        sums[phase] += performance.now() - t0
        counts[phase]++
      }
    }
  }
  wrap(BasicCrawler.prototype, '_runTaskFunction', 'task')
  wrap(BasicCrawler.prototype, '_fetchNextRequest', 'fetchNext')
  wrap(HttpCrawler.prototype, '_handleNavigation', 'navigation')
  wrap(HttpCrawler.prototype, '_parseResponse', 'parse')
  wrap(BasicCrawler.prototype, 'addRequests', 'addRequests')
  wrap(RequestProvider.prototype, 'markRequestHandled', 'markHandled')
  // The tool's handler: HttpCrawler calls `this.requestHandler(context)`; wrapped per crawler when its pool starts.
  const handlers = new WeakSet<object>()
  const originalRun = HttpCrawler.prototype._runRequestHandler as (...args: unknown[]) => Promise<unknown>
  HttpCrawler.prototype._runRequestHandler = async function (this: { requestHandler: (...a: unknown[]) => unknown, sessionPool?: { getSession: (...a: unknown[]) => Promise<unknown> } }, ...args: unknown[]) {
    if (!handlers.has(this)) {
      handlers.add(this)
      const handler = this.requestHandler
      this.requestHandler = async (...a: unknown[]) => {
        const t0 = performance.now()
        try { return await handler(...a) } finally { sums.requestHandler += performance.now() - t0; counts.requestHandler++ }
      }
    }
    return originalRun.apply(this, args)
  }
  // getSession runs inside the task, before navigation.
  const { SessionPool } = fromCrawlee('@crawlee/core')
  wrap(SessionPool.prototype, 'getSession', 'session')
  const originalStatus = SystemStatus.prototype.getCurrentStatus as (...args: unknown[]) => { isSystemIdle: boolean }
  SystemStatus.prototype.getCurrentStatus = function (this: unknown, ...args: unknown[]) {
    const status = originalStatus.apply(this, args)
    statusChecks++
    if (!status.isSystemIdle) overloaded++
    return status
  }
  const originalPoolRun = AutoscaledPool.prototype.run as (...args: unknown[]) => Promise<unknown>
  AutoscaledPool.prototype.run = async function (this: { desiredConcurrency: number, currentConcurrency: number, maxConcurrency: number }, ...args: unknown[]) {
    pools.add(this)
    poolSlots = Math.max(poolSlots, this.maxConcurrency)
    try { return await originalPoolRun.apply(this, args) } finally { pools.delete(this) }
  }

  return {
    start () {
      poolSlots = 0
      sums = Object.fromEntries(PHASES.map(p => [p, 0])) as Record<Phase, number>
      counts = Object.fromEntries(PHASES.map(p => [p, 0])) as Record<Phase, number>
      overloaded = 0
      statusChecks = 0
      let samples = 0
      let desiredSum = 0
      let currentSum = 0
      const sampler = setInterval(() => {
        for (const pool of pools) { samples++; desiredSum += pool.desiredConcurrency; currentSum += pool.currentConcurrency }
      }, 50)
      const t0 = performance.now()
      return {
        stop () {
          clearInterval(sampler)
          const wall = performance.now() - t0
          const maxConcurrency = poolSlots
          const slots = wall * maxConcurrency
          const share = (ms: number) => `${(100 * ms / slots).toFixed(1)} %`
          const perTask = (ms: number) => (counts.task ? (ms / counts.task).toFixed(2) : '-')
          const inTask = sums.task
          const handlerOwn = sums.requestHandler - sums.addRequests
          const navigationParse = sums.navigation + sums.parse
          const other = inTask - sums.fetchNext - sums.session - navigationParse - sums.requestHandler - sums.markHandled
          return [
            ['slot time', 'ms per task', 'share of W × C'],
            [`idle (no task running: ramp-up, overload, nothing ready)`, '-', share(slots - inTask)],
            ['task: fetch next request from the queue', perTask(sums.fetchNext), share(sums.fetchNext)],
            ['task: get a session', perTask(sums.session), share(sums.session)],
            ['task: navigation (hooks + HTTP request to response)', perTask(sums.navigation), share(sums.navigation)],
            ['task: read + parse the body (crawlee)', perTask(sums.parse), share(sums.parse)],
            ['task: handler, without addRequests', perTask(handlerOwn), share(handlerOwn)],
            ['task: handler awaiting addRequests', perTask(sums.addRequests), share(sums.addRequests)],
            ['task: mark request handled', perTask(sums.markHandled), share(sums.markHandled)],
            ['task: the rest (timeouts, statistics, context)', perTask(other), share(other)],
            [`tasks ${counts.task}, wall ${(wall / 1000).toFixed(2)} s, mean concurrency running ${samples ? (currentSum / samples).toFixed(2) : '-'} / desired ${samples ? (desiredSum / samples).toFixed(2) : '-'} of ${maxConcurrency} task slots; overloaded at ${overloaded} of ${statusChecks} task starts`, '', ''],
          ]
        },
      }
    },
  }
}

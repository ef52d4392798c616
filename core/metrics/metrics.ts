// The service's Prometheus metrics (core/metrics/README.md lists them): one
// registry per app, made by the container, counted by the services that see
// each event happen, read by GET /metrics (core/metrics/routes.ts) or the
// METRICS_PORT listener (metrics-server.ts).
//
// Labels are bounded by construction: a route pattern (never the URL), a
// tool key (from the job row, which the registry wrote), an outcome or
// reason from the closed lists below, a program name, an HTTP status. No job
// id, URL, host or account appears in a label.
//
// METRICS=0 gives the same object with every method a no-op, and prom-client
// is never loaded.
import type * as PromClient from 'prom-client'

/** How a job ended, as the metrics count it (core/jobs/job-ending.ts decides). */
const JOB_OUTCOMES = ['done', 'error', 'blocked', 'refunded', 'cancelled', 'interrupted'] as const
export type JobOutcome = typeof JOB_OUTCOMES[number]

/** One upstream request of a tool (ctx.http, a crawler's page): see README.md for what each means. */
const UPSTREAM_OUTCOMES = ['ok', 'blocked', 'rate-limited', 'error'] as const
export type UpstreamOutcome = typeof UPSTREAM_OUTCOMES[number]

/** A request refused before anything was charged: the per-IP rate limit, the account's job cap, its daily or monthly quota. */
const REFUSAL_REASONS = ['rate-limit', 'job-cap', 'daily-quota', 'monthly-quota'] as const

/** How a media program's run ended: exit 0, another exit code, stopped by us (timeout, cancel, a limit), or never started. */
const PROGRAM_EXITS = ['ok', 'failed', 'stopped', 'not-started'] as const
export type ProgramExit = typeof PROGRAM_EXITS[number]

/** One extraction pool task: done, or the ExtractionError kind it failed with, or cancelled with its job. */
export type ExtractionOutcome = 'ok' | 'failed' | 'timeout' | 'out-of-memory' | 'crashed' | 'too-deep' | 'cancelled'

/** One webhook attempt (the webhook sender counts them): answered 2xx, failed and retried later, failed for good. */
const WEBHOOK_OUTCOMES = ['delivered', 'retrying', 'dead'] as const

/** A proxy of the pool as the gauges read it (core/net/proxy-pool.ts's health, in PROXY_URLS order). */
interface ProxyStatus { ok: boolean, cooling_down: boolean }

type Labels<K extends string> = Partial<Record<K, string | number>>

/** What a counter of ours is to its callers (prom-client's Counter, or a no-op). */
interface CounterOf<K extends string> { inc (labels: Labels<K>, value?: number): void }
interface HistogramOf<K extends string> { observe (labels: Labels<K>, value: number): void }
interface GaugeOf<K extends string> { inc (labels: Labels<K>, value?: number): void, dec (labels: Labels<K>, value?: number): void }

/** Jobs of one tool waiting for a worker: how many, and how long the oldest has waited. */
interface QueuedJobs { tool: string, count: number, oldestSeconds: number }

export interface Metrics {
  /** False with METRICS=0: nothing is counted or served. */
  readonly enabled: boolean
  httpRequests: CounterOf<'method' | 'route' | 'status'>
  httpDuration: HistogramOf<'method' | 'route' | 'status'>
  /** A job's run began in this process (claimed by its worker). */
  jobsStarted: CounterOf<'tool'>
  /** A job ended (counted once, by the process whose ending landed). */
  jobsEnded: CounterOf<'tool' | 'outcome'>
  /** From the run's start to its end; a job cancelled while queued has none. */
  jobDuration: HistogramOf<'tool' | 'outcome'>
  /** From the start request to the run's start. */
  queueWait: HistogramOf<'tool'>
  /** Jobs this process runs now. */
  jobsRunning: GaugeOf<'tool'>
  rowsWritten: CounterOf<'tool'>
  upstreamRequests: CounterOf<'tool' | 'outcome'>
  upstreamDuration: HistogramOf<'tool' | 'outcome'>
  refusals: CounterOf<'reason'>
  webhookDeliveries: CounterOf<'outcome'>
  /** Time from an attempt's start to its answer or failure, by outcome. */
  webhookAttemptDuration: HistogramOf<'outcome'>
  /** A proxy entered its cool-down (label: its position in PROXY_URLS, from 0). */
  proxyCooldowns: CounterOf<'proxy'>
  programRuns: CounterOf<'program' | 'exit'>
  programCpuSeconds: CounterOf<'program'>
  extractionTasks: CounterOf<'outcome'>
  /**
   * Where the queued gauges read their figures at each scrape (the database:
   * every process shows the cluster's queue). Set by the container.
   */
  readQueued (source: () => Promise<readonly QueuedJobs[]>): void
  /** Where the proxy gauges read each proxy's health at each scrape (the pool, in PROXY_URLS order). Set by the container. */
  readProxies (source: () => readonly ProxyStatus[]): void
  /** The exposition text and its content type. */
  render (): Promise<{ contentType: string, body: string }>
}

const noop = { inc () {}, dec () {}, observe () {} }

/** METRICS=0: every call does nothing. */
export function disabledMetrics (): Metrics {
  return {
    enabled: false,
    httpRequests: noop,
    httpDuration: noop,
    jobsStarted: noop,
    jobsEnded: noop,
    jobDuration: noop,
    queueWait: noop,
    jobsRunning: noop,
    rowsWritten: noop,
    upstreamRequests: noop,
    upstreamDuration: noop,
    refusals: noop,
    webhookDeliveries: noop,
    webhookAttemptDuration: noop,
    proxyCooldowns: noop,
    programRuns: noop,
    programCpuSeconds: noop,
    extractionTasks: noop,
    readQueued () {},
    readProxies () {},
    render: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' }),
  }
}

/** Seconds, for requests: 5 ms to 10 s. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Seconds, for jobs and their waits: 100 ms to 1 h. */
const JOB_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600]

/**
 * The registry with every metric of README.md, and the process's own
 * (`process_*`, `nodejs_*`: CPU, memory, event-loop lag, handles).
 * `tools`: the registry's keys, so each tool's series exist at 0 from the start
 * (a rate over a counter that appears only with its first event misses it).
 */
export function createMetrics (prom: typeof PromClient, tools: readonly string[]): Metrics {
  const registry = new prom.Registry()
  const registers = [registry]
  prom.collectDefaultMetrics({ register: registry })
  let queuedSource: (() => Promise<readonly QueuedJobs[]>) | null = null
  // Both queued gauges are collected side by side at each scrape: one read of the database serves both.
  let queuedRead: Promise<readonly QueuedJobs[]> | null = null
  const readQueuedOnce = () => (queuedRead ??= (queuedSource?.() ?? Promise.resolve([])).finally(() => { queuedRead = null }))
  let proxySource: (() => readonly ProxyStatus[]) | null = null
  const counter = <K extends string>(name: string, help: string, labelNames: K[]) => new prom.Counter<K>({ name, help, labelNames, registers })
  const histogram = <K extends string>(name: string, help: string, labelNames: K[], buckets: number[]) => new prom.Histogram<K>({ name, help, labelNames, buckets, registers })
  const metrics: Metrics = {
    enabled: true,
    httpRequests: counter('http_requests_total', 'HTTP requests answered, by method, route pattern and status.', ['method', 'route', 'status']),
    httpDuration: histogram('http_request_duration_seconds', 'Time to answer an HTTP request, by method, route pattern and status.', ['method', 'route', 'status'], REQUEST_BUCKETS),
    jobsStarted: counter('jobs_started_total', 'Job runs begun in this process, by tool.', ['tool']),
    jobsEnded: counter('jobs_ended_total', `Jobs ended, by tool and outcome (${JOB_OUTCOMES.join(', ')}).`, ['tool', 'outcome']),
    jobDuration: histogram('job_duration_seconds', 'A job\'s run, from its start to its end, by tool and outcome.', ['tool', 'outcome'], JOB_BUCKETS),
    queueWait: histogram('job_queue_wait_seconds', 'Time from a job\'s start request to its run\'s start, by tool.', ['tool'], JOB_BUCKETS),
    jobsRunning: new prom.Gauge<'tool'>({ name: 'jobs_running', help: 'Jobs this process runs now, by tool.', labelNames: ['tool'], registers }),
    rowsWritten: counter('rows_written_total', 'Result rows stored, by tool.', ['tool']),
    upstreamRequests: counter('upstream_requests_total', `Tools' requests to upstream sites, by tool and outcome (${UPSTREAM_OUTCOMES.join(', ')}).`, ['tool', 'outcome']),
    upstreamDuration: histogram('upstream_request_duration_seconds', 'Time to an upstream answer\'s headers, by tool and outcome.', ['tool', 'outcome'], REQUEST_BUCKETS),
    refusals: counter('refusals_total', `Requests refused before any charge, by reason (${REFUSAL_REASONS.join(', ')}).`, ['reason']),
    webhookDeliveries: counter('webhook_deliveries_total', `Webhook delivery attempts, by outcome (${WEBHOOK_OUTCOMES.join(', ')}).`, ['outcome']),
    webhookAttemptDuration: histogram('webhook_attempt_duration_seconds', 'Time from a webhook attempt\'s start to its answer or failure, by outcome.', ['outcome'], REQUEST_BUCKETS),
    proxyCooldowns: counter('proxy_cooldowns_total', 'Times an outbound proxy began a cool-down (PROXY_FAILURE_LIMIT failures in a row), by its position in PROXY_URLS (from 0).', ['proxy']),
    programRuns: counter('media_program_runs_total', `Media program runs, by program and exit (${PROGRAM_EXITS.join(', ')}).`, ['program', 'exit']),
    programCpuSeconds: counter('media_program_cpu_seconds_total', 'CPU time of media program runs (sampled while they run), by program.', ['program']),
    extractionTasks: counter('extraction_tasks_total', 'Extraction pool tasks, by outcome.', ['outcome']),
    readQueued (source) { queuedSource = source },
    readProxies (source) { proxySource = source },
    async render () {
      return { contentType: registry.contentType, body: await registry.metrics() }
    },
  }
  // Registered on `registers`: read through the registry only. Each tool at 0 unless something of it waits.
  const queuedGauge = (name: string, help: string, value: (queued: QueuedJobs) => number) => new prom.Gauge<'tool'>({
    name,
    help,
    labelNames: ['tool'],
    registers,
    async collect () {
      this.reset()
      for (const tool of tools) this.set({ tool }, 0)
      for (const queued of await readQueuedOnce()) this.set({ tool: queued.tool }, value(queued))
    },
  })
  queuedGauge('jobs_queued', 'Jobs waiting for a worker, in the whole deployment (read from the database at each scrape), by tool.', q => q.count)
  // The queue-wait histogram is observed when a job is claimed: with no worker claiming, only this shows the wait.
  queuedGauge('jobs_queued_oldest_seconds', 'How long the oldest job still waiting for a worker has waited, in the whole deployment (read from the database at each scrape), by tool; 0 when none waits.', q => q.oldestSeconds)
  // The pool's health, read at each scrape: a cool-down ends with time, not with an event.
  const proxyGauge = (name: string, help: string, value: (p: ProxyStatus) => boolean) => new prom.Gauge<'proxy'>({
    name,
    help,
    labelNames: ['proxy'],
    registers,
    collect () {
      this.reset()
      ;(proxySource?.() ?? []).forEach((p, i) => this.set({ proxy: i }, value(p) ? 1 : 0))
    },
  })
  proxyGauge('proxy_up', 'Outbound proxies whose last request through them got an answer (1) or failed (0), by position in PROXY_URLS (from 0).', p => p.ok)
  proxyGauge('proxy_cooling_down', 'Outbound proxies cooling down now (1: skipped while others are available), by position in PROXY_URLS (from 0).', p => p.cooling_down)
  for (const tool of tools) {
    metrics.jobsStarted.inc({ tool }, 0)
    metrics.rowsWritten.inc({ tool }, 0)
    ;(metrics.jobsRunning as PromClient.Gauge<'tool'>).set({ tool }, 0)
    for (const outcome of JOB_OUTCOMES) metrics.jobsEnded.inc({ tool, outcome }, 0)
    for (const outcome of UPSTREAM_OUTCOMES) metrics.upstreamRequests.inc({ tool, outcome }, 0)
  }
  for (const reason of REFUSAL_REASONS) metrics.refusals.inc({ reason }, 0)
  for (const outcome of WEBHOOK_OUTCOMES) metrics.webhookDeliveries.inc({ outcome }, 0)
  return metrics
}

/** The outcome of an upstream answer's status: see README.md. */
export function upstreamOutcome (status: number): UpstreamOutcome {
  if (status === 429) return 'rate-limited'
  if (status === 401 || status === 403 || status === 451) return 'blocked'
  if (status >= 500) return 'error'
  return 'ok'
}

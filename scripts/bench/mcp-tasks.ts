// Benchmark (issue 27): long jobs as MCP tasks (2026-07-28, the
// io.modelcontextprotocol/tasks extension) against REST, in the distributed
// mode as operators run it: two API processes (`npm start`'s command), one
// worker (`npm run worker`'s), a throwaway redis-server, one database (SQLite
// WAL file shared by the processes, or BENCH_DATABASE_URL=postgresql://…).
// Both parts use the test counter tool, so the job is the same on both sides.
// 1. Overhead: one job at a time on API process A, started and followed to
//    its rows: REST is POST /api/tool-run, GET status every POLL_MS until it
//    ends, GET results; MCP is tools/call (answered at once with the task),
//    tasks/get every POLL_MS until `completed` (the tool result inline). The
//    two take turns in rounds of OVERHEAD_ROUND (the first round of each is
//    warm-up). Overhead = MCP p50 − REST p50 of start-to-rows, and of each call.
// 2. Pollers: CROWD_JOBS ten-second jobs started alternately on each API
//    process, then POLLERS clients each follow one of them, each on its own
//    keep-alive connection, alternating the two processes, at the interval the
//    start gave (a task's pollIntervalMs, REST's poll_seconds), until it ends,
//    and read its rows (inline in the final tasks/get; REST's GET results).
//    Once with tasks/get, once with REST status polls, on fresh jobs each.
//    Errors: a status that is not 200, a JSON-RPC error, an end other than
//    done with every row. Reported: p50/p99 per poll, and the API processes'
//    CPU per poll, with the MCP / REST ratio of each.
// Needs redis-server (REDIS_SERVER_BIN) and `npm run build` first (it measures dist/).
// Run: node --import tsx scripts/bench/mcp-tasks.ts   (BENCH_OVERHEAD_JOBS, BENCH_POLL_MS, BENCH_POLLERS, BENCH_CROWD_JOBS)
// Goals: task overhead p50 < 10 ms over REST; 500 tasks/get pollers without an error, p99 ≤ 2× REST's.
// Exits non-zero on errors (a poller's error included).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { modernMcpRequest } from '../../test/helpers/mcp-request.ts'
import { startRedis } from '../../test/helpers/redis-server.ts'
import { goal, percentile, printTable, runMain } from './harness.ts'
import { counterPluginForStart, signUp, startWorker } from './processes.ts'
import { npmScriptCommand, processCpuMs, scriptEnvironment, startServerProcess, type ServerProcess } from './server-process.ts'

const OVERHEAD_JOBS = Number(process.env.BENCH_OVERHEAD_JOBS ?? 60)
const OVERHEAD_ROUND = 10
/** Part 1's poll interval: short, so the figure is the calls' cost, not a poll interval's rounding. */
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 25)
/** Part 1's job: 5 rows after 100 ms. */
const SHORT_JOB = { max_results: 5, batch: 5, delay_ms: 100 }
const POLLERS = Number(process.env.BENCH_POLLERS ?? 500)
const CROWD_JOBS = Number(process.env.BENCH_CROWD_JOBS ?? 50)
/** Part 2's job: a row every 500 ms for 10 s, so the pollers overlap the runs. */
const CROWD_JOB = { max_results: 20, batch: 1, delay_ms: 500 }
/** A Pro account runs 4 jobs at once. */
const PRO_RUNNING = 4

interface Answer { status: number, body: any, ms: number }

/** One HTTP exchange on `agent` (each client its own keep-alive connection), timed from the write to the whole body. */
function exchange (agent: Agent, url: string, method: 'GET' | 'POST', headers: Record<string, string>, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = request(url, { method, agent, headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' } }, (res) => {
      let data = ''
      res.setEncoding('utf8')
      res.on('data', (c) => { data += c })
      res.on('end', () => {
        try { resolve({ status: res.statusCode ?? 0, body: JSON.parse(data), ms: performance.now() - t0 }) } catch (err) { reject(err) }
      })
      res.on('error', reject)
    })
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.end(payload)
  })
}

/** A JSON-RPC request of the 2026-07-28 revision, the tasks extension named (test/helpers/mcp-request.ts). */
function mcp (agent: Agent, base: string, key: string, method: string, params: Record<string, unknown>): Promise<Answer> {
  const { headers, body } = modernMcpRequest(key, method, params, 'bench')
  return exchange(agent, `${base}/mcp`, 'POST', headers, body)
}

const restGet = (agent: Agent, base: string, key: string, path: string) => exchange(agent, `${base}${path}`, 'GET', { 'x-api-key': key })
const restStart = (agent: Agent, base: string, key: string, params: Record<string, unknown>) => exchange(agent, `${base}/api/tool-run`, 'POST', { 'x-api-key': key }, { tool: 'counter', params })
/** The counter's REST params as its agent arguments (`limit` is REST's `max_results`). */
const agentArgs = ({ max_results: limit, ...rest }: Record<string, unknown>) => ({ limit, ...rest })
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

interface Timings { total: number[], start: number[], poll: number[], last: number[] }
const timings = (): Timings => ({ total: [], start: [], poll: [], last: [] })

/** REST: start, status every POLL_MS until it ends, then its rows. */
async function restFollow (agent: Agent, base: string, key: string, into: Timings | null): Promise<void> {
  const t0 = performance.now()
  const started = await restStart(agent, base, key, SHORT_JOB)
  if (started.status !== 202) throw new Error(`REST start answered ${started.status}: ${JSON.stringify(started.body)}`)
  const polls: number[] = []
  for (;;) {
    await sleep(POLL_MS)
    const status = await restGet(agent, base, key, started.body.status_url)
    if (status.status !== 200) throw new Error(`REST status answered ${status.status}`)
    if (status.body.status !== 'running') break
    polls.push(status.ms)
  }
  const rows = await restGet(agent, base, key, started.body.results_url)
  if (rows.status !== 200 || rows.body.results.length !== SHORT_JOB.max_results) throw new Error(`REST results answered ${rows.status} with ${rows.body.results?.length} rows`)
  if (into) { into.total.push(performance.now() - t0); into.start.push(started.ms); into.poll.push(...polls); into.last.push(rows.ms) }
}

/** MCP: tools/call as a task, tasks/get every POLL_MS until `completed` with the result inline. */
async function taskFollow (agent: Agent, base: string, key: string, into: Timings | null): Promise<void> {
  const t0 = performance.now()
  const created = await mcp(agent, base, key, 'tools/call', { name: 'count_rows', arguments: agentArgs(SHORT_JOB) })
  const taskId = created.body.result?.taskId as string | undefined
  if (created.status !== 200 || !taskId) throw new Error(`tools/call answered ${created.status}: ${JSON.stringify(created.body).slice(0, 300)}`)
  const polls: number[] = []
  for (;;) {
    await sleep(POLL_MS)
    const got = await mcp(agent, base, key, 'tasks/get', { taskId })
    if (got.status !== 200 || got.body.error) throw new Error(`tasks/get answered ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`)
    if (got.body.result.status === 'working') { polls.push(got.ms); continue }
    if (got.body.result.status !== 'completed' || got.body.result.result?.structuredContent?.results?.length !== SHORT_JOB.max_results) throw new Error(`task ended ${JSON.stringify(got.body.result).slice(0, 300)}`)
    if (into) { into.total.push(performance.now() - t0); into.start.push(created.ms); into.poll.push(...polls); into.last.push(got.ms) }
    return
  }
}

interface CrowdResult { kind: 'tasks/get' | 'REST status', polls: number[], working: number[], finals: number[], errors: number, samples: string[], cpuPerPoll: number, seconds: number }

/**
 * CROWD_JOBS jobs started alternately on the two API processes (as tasks, or
 * REST jobs), then POLLERS clients following them to their rows, each on its
 * own connection, alternating processes, every interval the start gave.
 */
async function crowd (kind: CrowdResult['kind'], apis: ServerProcess[], keys: string[]): Promise<CrowdResult> {
  const result: CrowdResult = { kind, polls: [], working: [], finals: [], errors: 0, samples: [], cpuPerPoll: 0, seconds: 0 }
  const failed = (what: string) => { result.errors++; if (result.samples.length < 10) result.samples.push(what) }
  const starter = new Agent({ keepAlive: true, maxSockets: 4 })
  const jobs: Array<{ id: string, key: string, interval: number, results?: string }> = []
  for (let i = 0; i < CROWD_JOBS; i++) {
    const key = keys[Math.floor(i / PRO_RUNNING)]!
    const base = apis[i % 2]!.url
    if (kind === 'tasks/get') {
      const created = await mcp(starter, base, key, 'tools/call', { name: 'count_rows', arguments: agentArgs(CROWD_JOB) })
      if (!created.body.result?.taskId) throw new Error(`crowd tools/call answered ${created.status}: ${JSON.stringify(created.body).slice(0, 300)}`)
      jobs.push({ id: created.body.result.taskId, key, interval: created.body.result.pollIntervalMs })
    } else {
      const started = await restStart(starter, base, key, CROWD_JOB)
      if (started.status !== 202) throw new Error(`crowd start answered ${started.status}: ${JSON.stringify(started.body)}`)
      jobs.push({ id: started.body.job_id, key, interval: started.body.poll_seconds * 1000, results: started.body.results_url })
    }
  }
  starter.destroy()
  const cpu = () => apis.reduce((sum, a) => sum + a.cpuMs().total, 0)
  const cpuBefore = cpu()
  const t0 = performance.now()

  const poller = async (n: number) => {
    const job = jobs[n % jobs.length]!
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    // Spread over one interval, as clients that started at different moments.
    await sleep(Math.random() * job.interval)
    try {
      for (let k = 0; ; k++) {
        const base = apis[(n + k) % 2]!.url
        try {
          if (kind === 'tasks/get') {
            const got = await mcp(agent, base, job.key, 'tasks/get', { taskId: job.id })
            result.polls.push(got.ms)
            ;(got.body.result?.status === 'working' ? result.working : result.finals).push(got.ms)
            if (got.status !== 200 || got.body.error) { failed(`${got.status} ${JSON.stringify(got.body).slice(0, 200)}`) } else if (got.body.result.status !== 'working') {
              if (got.body.result.result?.structuredContent?.records !== CROWD_JOB.max_results) failed(`task ${job.id} ended ${JSON.stringify(got.body.result).slice(0, 200)}`)
              return
            }
          } else {
            const status = await restGet(agent, base, job.key, `/api/tool-run/${job.id}/status`)
            result.polls.push(status.ms)
            result.working.push(status.ms)
            if (status.status !== 200) { failed(`${status.status} ${JSON.stringify(status.body).slice(0, 200)}`) } else if (status.body.status !== 'running') {
              // The rows, as the final tasks/get carries them.
              const rows = await restGet(agent, base, job.key, job.results!)
              result.polls.push(rows.ms)
              result.finals.push(rows.ms)
              if (status.body.status !== 'done' || rows.body.results?.length !== CROWD_JOB.max_results) failed(`job ${job.id} ended ${status.body.status} with ${rows.body.results?.length} rows`)
              return
            }
          }
        } catch (err) {
          failed((err as Error).message)
        }
        await sleep(job.interval)
      }
    } finally {
      agent.destroy()
    }
  }
  await Promise.all(Array.from({ length: POLLERS }, (_, n) => poller(n)))
  result.seconds = (performance.now() - t0) / 1000
  result.cpuPerPoll = (cpu() - cpuBefore) / Math.max(1, result.polls.length)
  for (const xs of [result.polls, result.working, result.finals]) xs.sort((a, b) => a - b)
  return result
}

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-mcp-tasks-'))
  const redisTeardown: Array<() => unknown> = []
  const redis = await startRedis({ teardown: fn => { redisTeardown.unshift(fn) } })
  const stops: Array<() => Promise<unknown>> = [async () => { for (const fn of redisTeardown) await fn() }]
  try {
    const toolsConfig = join(dir, 'tools.bench.config.json')
    writeFileSync(toolsConfig, JSON.stringify({ tools: [{ key: 'counter', plugin: await counterPluginForStart(), enabled: true }], retired: [] }))
    const env: Record<string, string> = {
      DATA_DIR: dir,
      DATABASE_URL: process.env.BENCH_DATABASE_URL ?? `file:${join(dir, 'app.db')}`,
      SECRET_KEY: 'bench-secret-key-0123456789',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      TOOLS_CONFIG: toolsConfig,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `bench${randomBytes(3).toString('hex')}`,
      // Every crowd job at once (they wait, they do not compute).
      WORKER_CONCURRENCY: String(CROWD_JOBS + 4),
      WORKER_SHUTDOWN_GRACE_MS: '0',
      EXTRACT_WORKERS: '1',
    }
    const apis: ServerProcess[] = []
    for (let i = 0; i < 2; i++) {
      const server = await startServerProcess({ env, readyTimeoutMs: 180_000 })
      stops.unshift(server.stop)
      apis.push(server)
    }
    const worker = startWorker(npmScriptCommand('worker'), { ...scriptEnvironment('worker'), ...env })
    stops.unshift(worker.stop)
    await worker.ready
    const [a] = apis as [ServerProcess, ServerProcess]

    // 1. Overhead, one job at a time on A, REST and MCP taking turns.
    const overheadKey = await signUp(a.url, true)
    const rest = timings()
    const task = timings()
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    for (let round = 0; round * OVERHEAD_ROUND < OVERHEAD_JOBS + OVERHEAD_ROUND; round++) {
      const sides = round % 2 === 0 ? [restFollow, taskFollow] : [taskFollow, restFollow]
      for (const follow of sides) {
        for (let j = 0; j < OVERHEAD_ROUND; j++) await follow(agent, a.url, overheadKey, round === 0 ? null : follow === restFollow ? rest : task)
      }
    }
    agent.destroy()
    for (const t of [rest, task]) for (const xs of Object.values(t)) xs.sort((x: number, y: number) => x - y)

    // 2. Pollers over both processes: REST, then tasks/get, each on fresh jobs and accounts.
    const accounts = async () => {
      const keys: string[] = []
      for (let i = 0; i < Math.ceil(CROWD_JOBS / PRO_RUNNING); i++) keys.push(await signUp(apis[i % 2]!.url, true))
      return keys
    }
    const restCrowd = await crowd('REST status', apis, await accounts())
    const taskCrowd = await crowd('tasks/get', apis, await accounts())

    const f = (xs: number[], q: number) => xs.length ? percentile(xs, q).toFixed(1) : '-'
    printTable(`overhead: counter ${JSON.stringify(SHORT_JOB)}, one job at a time on one API process (worker on Redis), polled every ${POLL_MS} ms, ${OVERHEAD_JOBS} per side after ${OVERHEAD_ROUND} warm-up, ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite (one WAL file)'}`, [
      ['ms', 'REST p50', 'REST p90', 'task p50', 'task p90', 'p50 task − REST'],
      ['start to rows', f(rest.total, 50), f(rest.total, 90), f(task.total, 50), f(task.total, 90), (percentile(task.total, 50) - percentile(rest.total, 50)).toFixed(1)],
      ['start (POST /api/tool-run | tools/call → task)', f(rest.start, 50), f(rest.start, 90), f(task.start, 50), f(task.start, 90), (percentile(task.start, 50) - percentile(rest.start, 50)).toFixed(1)],
      ['a poll while running (status | tasks/get working)', f(rest.poll, 50), f(rest.poll, 90), f(task.poll, 50), f(task.poll, 90), (percentile(task.poll, 50) - percentile(rest.poll, 50)).toFixed(1)],
      ['the rows (GET results | tasks/get completed)', f(rest.last, 50), f(rest.last, 90), f(task.last, 50), f(task.last, 90), (percentile(task.last, 50) - percentile(rest.last, 50)).toFixed(1)],
    ])
    printTable(`pollers: ${POLLERS} clients (own connection each, alternating 2 API processes) following ${CROWD_JOBS} jobs (counter ${JSON.stringify(CROWD_JOB)}) at the advised interval, to their rows`, [
      ['polling', 'polls', 'errors', 'p50 ms', 'p99 ms', 'max ms', 'running p50/p99', 'final p50/p99', 'API CPU ms/poll', 'seconds'],
      ...[restCrowd, taskCrowd].map(c => [c.kind, String(c.polls.length), String(c.errors), f(c.polls, 50), f(c.polls, 99), f(c.polls, 100), `${f(c.working, 50)} / ${f(c.working, 99)}`, `${f(c.finals, 50)} / ${f(c.finals, 99)}`, c.cpuPerPoll.toFixed(2), c.seconds.toFixed(1)]),
    ])
    const ratio = (q: number) => percentile(taskCrowd.polls, q) / percentile(restCrowd.polls, q)
    console.log(`tasks/get / REST status: p50 ${ratio(50).toFixed(2)}×, p99 ${ratio(99).toFixed(2)}×, API CPU per poll ${(taskCrowd.cpuPerPoll / restCrowd.cpuPerPoll).toFixed(2)}×; the worker's CPU ${processCpuMs(worker.pid).toFixed(0)} ms in all`)
    for (const c of [restCrowd, taskCrowd]) for (const s of c.samples) console.log(`  ${c.kind} error: ${s}`)
    const overhead = percentile(task.total, 50) - percentile(rest.total, 50)
    goal(`a tool call as a task: start-to-rows overhead p50 under 10 ms over REST start-and-poll (${overhead.toFixed(1)} ms)`, overhead < 10)
    goal(`${POLLERS} tasks/get pollers over two API processes: 0 errors (${taskCrowd.errors})`, taskCrowd.errors === 0)
    goal(`tasks/get p99 at most 2× REST status polling's (${ratio(99).toFixed(2)}×)`, ratio(99) <= 2)
    if (taskCrowd.errors + restCrowd.errors > 0) process.exitCode = 1
  } finally {
    for (const stop of stops) await stop().catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  }
}

runMain(main)

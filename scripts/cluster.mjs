#!/usr/bin/env node
// `npm run cluster`: the scale-out topology on one machine, for trying it and
// for operators to copy (README, Scale-out): a throwaway PostgreSQL 15
// (.ci/pg.sh) and redis-server in a temp dir, two API processes
// (core/server.ts) behind one port through a round-robin proxy
// (WebSocket upgrades included), and two workers (core/worker.ts). They run
// the compiled entry points exactly as `npm start` and `npm run worker` do
// (dist/, built by `npm ci` or `npm run build`), as an operator's would.
// Ctrl-C (or SIGTERM) stops everything and removes the temp dir
// (CLUSTER_KEEP=1 keeps it: database, logs).
//
// Settings (environment): CLUSTER_PORT (the one port clients use, default 3000),
// CLUSTER_API_PROCESSES / CLUSTER_WORKERS (default 2 each); everything else in
// the environment (ADMIN_API_KEY, tool credentials …) is passed to every process.
import { spawn, execFileSync } from 'node:child_process'
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { randomBytes } from 'node:crypto'
import { startRoundRobinProxy } from './round-robin-proxy.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
/**
 * The node flags of `npm start` (`[NAME=value…] node <flags> dist/core/server.js`) and the
 * environment variables it sets before `node` (its malloc settings), so both kinds of process run as it does.
 */
const startWords = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start.trim().split(/\s+/)
const START_ENV = Object.fromEntries(startWords.slice(0, startWords.indexOf('node')).map(word => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]))
const COMPILED = startWords.slice(startWords.indexOf('node') + 1, -1)
const count = (name, fallback) => {
  const n = Number(process.env[name] ?? fallback)
  if (!Number.isInteger(n) || n < 1 || n > 16) { console.error(`${name} must be a whole number from 1 to 16`); process.exit(78) }
  return n
}
const publicPort = Number(process.env.CLUSTER_PORT ?? 3000)
const apiCount = count('CLUSTER_API_PROCESSES', 2)
const workerCount = count('CLUSTER_WORKERS', 2)

const freePort = () => new Promise((ok, fail) => {
  const s = createServer()
  s.once('error', fail)
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)) })
})
const sleep = (ms) => new Promise(r => setTimeout(r, ms))

const dir = mkdtempSync(join(tmpdir(), 'ejs-cluster-'))
const logs = join(dir, 'logs')
mkdirSync(logs)
const children = []
let pgDir = null
let proxy = null
let stopping = false

/** A child process whose output goes to logs/<name>.log. */
function run (name, command, args, env = {}) {
  const log = createWriteStream(join(logs, `${name}.log`))
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout.pipe(log)
  child.stderr.pipe(log)
  child.on('exit', (code, signal) => {
    if (!stopping) console.error(`${name} exited (${signal ?? code}); see ${join(logs, `${name}.log`)}`)
  })
  children.push({ name, child })
  return child
}

async function stop (code = 0) {
  if (stopping) return
  stopping = true
  console.log('\nstopping: workers drain, API processes close …')
  await proxy?.close()
  // Workers and API processes first (they hand running jobs back), then Redis and PostgreSQL.
  const apps = children.filter(c => c.name !== 'redis')
  await Promise.all(apps.map(({ child }) => new Promise(r => { if (child.exitCode !== null || child.signalCode !== null) return r(); child.once('exit', r); child.kill('SIGTERM') })))
  for (const { name, child } of children) if (name === 'redis' && child.exitCode === null) { child.kill('SIGTERM'); await new Promise(r => child.once('exit', r)) }
  if (pgDir) { try { execFileSync('bash', [join(root, '.ci/pg.sh'), 'stop', pgDir], { stdio: 'ignore' }) } catch {} }
  if (process.env.CLUSTER_KEEP === '1') console.log(`kept ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
  process.exit(code)
}
process.on('SIGINT', () => { void stop() })
process.on('SIGTERM', () => { void stop() })

async function waitFor (what, check, ms = 300_000) {
  const until = Date.now() + ms
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`${what} did not come up; logs in ${logs}`)
    await sleep(200)
  }
}

async function main () {
  // PostgreSQL: .ci/pg.sh prints its URL (it runs the server as the postgres user when we are root).
  // Beside the temp dir, not in it: the temp dir is owner-only and the server may run as another user.
  pgDir = join(tmpdir(), `ejs-cluster-pg-${randomBytes(4).toString('hex')}`)
  const databaseUrl = execFileSync('bash', [join(root, '.ci/pg.sh'), 'start', pgDir, String(await freePort())], { encoding: 'utf8' }).trim()
  console.log(`postgresql  ${databaseUrl}`)

  const redisPort = await freePort()
  mkdirSync(join(dir, 'redis'))
  // appendonly: the queue survives a Redis restart; noeviction: BullMQ's keys must never be evicted.
  run('redis', process.env.REDIS_SERVER_BIN ?? 'redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', join(dir, 'redis'), '--save', '', '--appendonly', 'yes', '--maxmemory-policy', 'noeviction'])
  const redisUrl = `redis://127.0.0.1:${redisPort}`
  console.log(`redis       ${redisUrl}`)

  // What every process shares: the database, Redis, the secret (keys encrypted by one are read by all) and DATA_DIR (the artifacts).
  const shared = {
    ...START_ENV,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    DATA_DIR: join(dir, 'data'),
    SECRET_KEY: process.env.SECRET_KEY ?? randomBytes(32).toString('base64url'),
  }
  const backends = []
  for (let i = 1; i <= apiCount; i++) {
    const port = await freePort()
    // TRUST_PROXY=1: the proxy in front writes the client's address.
    run(`api-${i}`, process.execPath, [...COMPILED, 'dist/core/server.js'], { ...shared, HOST: '127.0.0.1', PORT: String(port), TRUST_PROXY: '1' })
    backends.push({ host: '127.0.0.1', port })
  }
  for (let i = 1; i <= workerCount; i++) run(`worker-${i}`, process.execPath, [...COMPILED, 'dist/core/worker.js'], shared)
  for (const [i, b] of backends.entries()) {
    await waitFor(`api-${i + 1}`, async () => (await fetch(`http://${b.host}:${b.port}/api/health`)).ok)
    console.log(`api-${i + 1}       http://${b.host}:${b.port} (pid ${children.find(c => c.name === `api-${i + 1}`).child.pid})`)
  }
  for (const { name, child } of children.filter(c => c.name.startsWith('worker-'))) console.log(`${name}    pid ${child.pid}`)
  proxy = await startRoundRobinProxy({ port: publicPort, backends })
  console.log(`\nready: http://127.0.0.1:${proxy.port}  (logs in ${logs}; Ctrl-C stops everything)`)
}

main().catch((err) => { console.error(err.message); void stop(1) })

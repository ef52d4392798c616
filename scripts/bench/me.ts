// Benchmark: requests per second of `GET /api/auth/me` against a bare fastify
// route returning a JSON body of the same byte size, same process, same run.
// Run: node --import tsx scripts/bench/me.ts   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS to tune)
// Prints both rates and the ratio; exits non-zero only on request errors, never on the ratio.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
// autocannon ships no types; the programmatic API is autocannon(options) -> Promise<Result>.
// @ts-expect-error no declaration file
import autocannon from 'autocannon'
import { buildApp } from '../../core/app.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const WARMUP_SECONDS = 2

interface Result { requests: { average: number }, errors: number, timeouts: number, non2xx: number, '2xx': number }

function run (url: string, headers: Record<string, string>, duration: number): Promise<Result> {
  return autocannon({ url, headers, connections: CONNECTIONS, duration, pipelining: 1 }) as Promise<Result>
}

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-me-'))
  const app = await buildApp({
    env: {
      DATA_DIR: dir,
      DATABASE_URL: `file:${join(dir, 'app.db')}`,
      LOG_LEVEL: 'warn',
      SECRET_KEY: 'bench-secret-key-0123456789',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PRO_PER_MINUTE: '1000000',
      TOOLS_CONFIG: process.env.TOOLS_CONFIG ?? resolve('tools.config.json'),
    },
  })
  const bare = Fastify({ logger: false })
  let failed = false
  try {
    const signup = await app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: 'bench@example.com', password: 'bench password', name: 'Bench' } })
    if (signup.statusCode !== 200) throw new Error(`signup failed: ${signup.statusCode} ${signup.body}`)
    const apiKey = signup.json().user.api_key as string
    const probe = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': apiKey } })
    if (probe.statusCode !== 200) throw new Error(`me failed: ${probe.statusCode} ${probe.body}`)
    const size = Buffer.byteLength(probe.body)
    // The same object, so the bare route pays the same serialisation.
    const body = probe.json()
    bare.get('/bare', async () => body)

    await app.listen({ host: '127.0.0.1', port: 0 })
    await bare.listen({ host: '127.0.0.1', port: 0 })
    const meUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/auth/me`
    const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/bare`
    const bareSize = Buffer.byteLength((await (await fetch(bareUrl)).text()))
    console.log(`body: me ${size} bytes, bare ${bareSize} bytes; ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds (order alternates)`)

    const targets = {
      me: { url: meUrl, headers: { 'x-api-key': apiKey } },
      bare: { url: bareUrl, headers: {} },
    }
    for (const t of Object.values(targets)) await run(t.url, t.headers, WARMUP_SECONDS)

    const rps: Record<'me' | 'bare', number[]> = { me: [], bare: [] }
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<'me' | 'bare'> = round % 2 === 0 ? ['bare', 'me'] : ['me', 'bare']
      for (const name of order) {
        const r = await run(targets[name].url, targets[name].headers, SECONDS)
        const bad = r.errors + r.timeouts + r.non2xx
        if (bad > 0) { failed = true; console.error(`${name}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`) }
        rps[name].push(r.requests.average)
        console.log(`round ${round + 1} ${name.padEnd(4)} ${r.requests.average.toFixed(0)} req/s`)
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
    const me = mean(rps.me)
    const bareRps = mean(rps.bare)
    console.log(`GET /api/auth/me: ${me.toFixed(0)} req/s`)
    console.log(`bare fastify:     ${bareRps.toFixed(0)} req/s`)
    console.log(`ratio me/bare:    ${(me / bareRps).toFixed(2)} (goal >= 0.5)`)
  } catch (err) {
    failed = true
    console.error(err)
  } finally {
    await bare.close()
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  }
  process.exit(failed ? 1 : 0)
}

void main()

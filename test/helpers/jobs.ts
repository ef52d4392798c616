// Helpers for job tests: an app with the test-only counter tool, and polling.
import { resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { build, type BuildTestOptions } from './build.ts'

export const TEST_TOOLS_CONFIG = resolve('test/fixtures/tools.test.config.json')

export function buildWithCounter (t: Parameters<typeof build>[0], options: BuildTestOptions = {}): Promise<FastifyInstance> {
  return build(t, { ...options, env: { TOOLS_CONFIG: TEST_TOOLS_CONFIG, ...options.env } })
}

export async function startJob (app: FastifyInstance, apiKey: string, params: Record<string, unknown> = {}, tool = 'counter', headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': apiKey, ...headers }, payload: { tool, params } })
  return res
}

/**
 * Reads the status endpoint until the job leaves `running` (or the deadline passes) and returns
 * what it answered. Between reads it sleeps until the job's ending event (the app's job events,
 * heard from any process) or 100 ms, whichever comes first: a read every 20 ms cost a test CPU
 * for every second its job ran, and the timer still covers an ending no event told of.
 */
export async function waitForEnd (app: FastifyInstance, apiKey: string, jobId: string, timeoutMs = 15_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs
  let ended = false
  let wake: (() => void) | undefined
  const subscription = app.services.events.subscribe(jobId, (event) => {
    if (event.type === 'progress') return
    ended = true
    wake?.()
  })
  try {
    for (;;) {
      const res = await app.inject({ method: 'GET', url: `/api/tool-run/${jobId}/status`, headers: { 'x-api-key': apiKey } })
      const body = res.json()
      if (res.statusCode !== 200) throw new Error(`status answered ${res.statusCode}: ${res.body}`)
      if (body.status !== 'running') return body
      if (Date.now() > deadline) throw new Error(`job ${jobId} still running after ${timeoutMs} ms (stage ${body.stage})`)
      // Told of the end but the status still says running (another process's answer not yet visible): read again soon.
      await new Promise<void>(resolve => {
        const timer = setTimeout(resolve, ended ? 20 : 100)
        wake = () => { clearTimeout(timer); resolve() }
      })
      wake = undefined
    }
  } finally {
    subscription.close()
  }
}

export const usageOf = async (app: FastifyInstance, apiKey: string) =>
  (await app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': apiKey } })).json().usage

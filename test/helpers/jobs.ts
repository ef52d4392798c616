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

/** Polls the status endpoint until the job leaves `running` (or the deadline passes). */
export async function waitForEnd (app: FastifyInstance, apiKey: string, jobId: string, timeoutMs = 15_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const res = await app.inject({ method: 'GET', url: `/api/tool-run/${jobId}/status`, headers: { 'x-api-key': apiKey } })
    const body = res.json()
    if (res.statusCode !== 200) throw new Error(`status answered ${res.statusCode}: ${res.body}`)
    if (body.status !== 'running') return body
    if (Date.now() > deadline) throw new Error(`job ${jobId} still running after ${timeoutMs} ms (stage ${body.stage})`)
    await new Promise(r => setTimeout(r, 20))
  }
}

export const usageOf = async (app: FastifyInstance, apiKey: string) =>
  (await app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': apiKey } })).json().usage

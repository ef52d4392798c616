// Small helpers shared by the kernel tests (not a test file itself).
import type { FastifyInstance } from 'fastify'
import { withKey } from '../helpers/build.ts'

export const PASSWORD = 'correct horse battery'

export async function call (app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, key?: string, payload?: unknown) {
  return app.inject({ method, url, headers: withKey(key), ...(payload === undefined ? {} : { payload: payload as object }) })
}

export const me = (app: FastifyInstance, key?: string) => call(app, 'GET', '/api/auth/me', key)

/** Every error a client sees is `{detail: string}`. */
export function isDetail (body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { detail?: unknown }
    return typeof parsed.detail === 'string' && parsed.detail.length > 0
  } catch { return false }
}

export async function mintToken (app: FastifyInstance, key: string, body: { name?: string, tools?: string[], expires_in_days?: number } = {}) {
  const res = await call(app, 'POST', '/api/auth/tokens', key, { name: 'ci', tools: ['maps'], ...body })
  if (res.statusCode !== 201) throw new Error(`mint failed: ${res.statusCode} ${res.body}`)
  return res.json() as { token: string, id: string, name: string, tools: string[], expires_at: string | null }
}

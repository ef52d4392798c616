// Reading an app's Prometheus metrics in tests (core/metrics): the exposition
// parsed into samples, GET /metrics with the admin key, and one series' value.
import type { FastifyInstance } from 'fastify'
import { ADMIN_KEY } from './build.ts'

/** One sample of the exposition: its metric name, labels and value. */
export interface Sample { name: string, labels: Record<string, string>, value: number }

export function parseExposition (text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match) throw new Error(`not an exposition line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!
    samples.push({ name: match[1]!, labels, value: Number(match[3]) })
  }
  return samples
}

/** The app's exposition through GET /metrics (the admin key). */
export async function scrape (app: FastifyInstance): Promise<Sample[]> {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': ADMIN_KEY } })
  if (res.statusCode !== 200) throw new Error(`GET /metrics answered ${res.statusCode}: ${res.body}`)
  return parseExposition(res.body)
}

/** The value of one series, or the sum of those matching `labels` (0 when absent). */
export const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples.filter(s => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0)

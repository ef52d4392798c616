// buildApp(options): the service's composition root: the kernel's app
// (core/kernel-app.ts) with the features beside it. Tests, benchmarks and
// `npm start` (core/server.ts) build the app here.
import type { FastifyInstance } from 'fastify'
import { buildKernelApp, type BuildOptions } from './kernel-app.ts'

export type { BuildOptions } from './kernel-app.ts'

export async function buildApp (options: BuildOptions = {}): Promise<FastifyInstance> {
  return buildKernelApp(options)
}

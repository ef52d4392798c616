// buildApp(options): the service's composition root: the kernel's app
// (core/kernel-app.ts) with the features beside it (core/features/, each a
// core/feature.ts Feature). Tests, benchmarks and `npm start` (core/server.ts)
// build the app here; nothing in the kernel imports this file or a feature.
import type { FastifyInstance } from 'fastify'
import { buildKernelApp, type BuildOptions } from './kernel-app.ts'
import { blogFeature } from './features/blog/feature.ts'
import { webFeature } from './features/web/feature.ts'

export type { BuildOptions } from './kernel-app.ts'

/** In registration order: the web pages read the blog's posts. */
const FEATURES = [blogFeature, webFeature]

/** `options.features` replaces the service's features (tests of the kernel alone, or of a feature of their own). */
export async function buildApp (options: BuildOptions = {}): Promise<FastifyInstance> {
  return buildKernelApp({ ...options, features: options.features ?? FEATURES })
}

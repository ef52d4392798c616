// Builds the guarded network pieces a job gets (core/net), bound to the job's
// abort signal and the operator's proxy, user agent and private-target policy.
import type { LogLevel } from 'crawlee'
import type { AppConfig } from '../config.ts'
import type { CrawlerFactory, NetworkPolicy } from '../tools/contract.ts'
import { createNetworkPolicy } from '../net/network-policy.ts'
import { createHttpClient, type GuardedHttpClient } from '../net/http-client.ts'
import { createCrawlerFactory } from '../net/crawler-factory.ts'

export interface NetFactory {
  policy (): NetworkPolicy
  /** A client bound to `signal`; close() it when the job ends (it pools connections). */
  http (signal?: AbortSignal): GuardedHttpClient
  crawlers (signal: AbortSignal): CrawlerFactory
}

export function createNetFactory (config: AppConfig): NetFactory {
  const policy = createNetworkPolicy({ allowPrivateTargets: config.allowPrivateTargets })
  const common = { policy, userAgent: config.userAgent, proxyUrl: config.proxyUrl ?? undefined }
  return {
    policy: () => policy,
    http: (signal?: AbortSignal) => createHttpClient({ ...common, signal }),
    // Crawlee's own log lines would break the JSON log stream; plugins report failures through ctx.log.
    crawlers: (signal: AbortSignal) => createCrawlerFactory({ ...common, signal, logLevel: 0 as LogLevel /* OFF */ }),
  }
}

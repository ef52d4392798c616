// Builds the guarded network pieces a job gets (core/net), bound to the job's
// abort signal and the operator's proxy pool, user agent, response-size limit and
// private-target policy.
import type { AppConfig } from '../config.ts'
import type { CrawlerFactory, DnsResolver, Extraction, Logger, NetworkPolicy } from '../tools/contract.ts'
import { createNetworkPolicy, systemLookup, type HostLookup, type TargetPolicy } from './network-policy.ts'
import { createHttpClient, type GuardedHttpClient } from './http-client.ts'
import { createCrawlerFactory } from './crawler-factory.ts'
import { createDnsResolver } from './dns-resolver.ts'
import { ProxyPool, type ProxyChooser } from './proxy-pool.ts'
import { systemClock, type Clock } from '../clock.ts'

export interface NetFactory {
  policy (): NetworkPolicy
  /**
   * A client bound to `signal`; close() it when the job ends (it pools connections).
   * `proxies`: a job's chooser, or null for direct connections; left out, each request takes the pool's next proxy.
   */
  http (signal?: AbortSignal, proxies?: ProxyChooser | null): GuardedHttpClient
  /** Crawlers bound to `signal`; they read pages' links with `extract` (the job's pool), log to `logger`, and use the job's proxies. */
  crawlers (signal: AbortSignal, job: { extract: Pick<Extraction, 'call'>, logger: Logger, proxies?: ProxyChooser | null }): CrawlerFactory
  /** The outbound proxies (PROXY_URLS) and their health. */
  readonly proxies: ProxyPool
  /** With REDIS_URL: what shares the proxies' health with every process (the container sets it, and closes it with the app). */
  shared?: { close (): void }
  /** The policy and resolver the guard applies, for the egress proxy of child processes (core/exec). */
  readonly guard: { policy: TargetPolicy, lookup: HostLookup }
  /** DNS lookups bound to `signal`, with the system's resolvers by default. */
  dns (signal: AbortSignal): DnsResolver
}

/**
 * What the environment does not set: how host names resolve (default the
 * system resolver) and exact `address:port` pairs allowed although private.
 * Tests use both to make a loopback fixture look like a public host, so the
 * guard's refusals can be exercised through the kernel.
 */
export interface NetworkOverrides {
  lookup?: HostLookup
  allowedTargets?: readonly string[]
}

export function createNetFactory (config: AppConfig, overrides: NetworkOverrides = {}, clock: Clock = systemClock): NetFactory {
  const policy = createNetworkPolicy({ allowPrivateTargets: config.allowPrivateTargets, allowedTargets: overrides.allowedTargets })
  const proxies = new ProxyPool(config.proxy.urls, { ...config.proxy, clock })
  const common = {
    policy,
    userAgent: config.userAgent,
    lookup: overrides.lookup,
    maxResponseBytes: config.maxResponseBytes,
  }
  // Requests with no job (webhooks) take the next proxy each time.
  const perRequest = () => proxies.chooser('request')
  return {
    policy: () => policy,
    guard: { policy, lookup: overrides.lookup ?? systemLookup },
    proxies,
    http: (signal, chosen) => createHttpClient({ ...common, signal, proxies: chosen === undefined ? perRequest() : chosen }),
    // Crawlee's own warnings and errors become lines of the job's pino logger (JSON, secrets scrubbed).
    crawlers: (signal, { extract, logger, proxies: chosen }) => createCrawlerFactory({ ...common, signal, extract, logger, proxies: chosen === undefined ? perRequest() : chosen }),
    dns: (signal: AbortSignal) => createDnsResolver(signal),
  }
}

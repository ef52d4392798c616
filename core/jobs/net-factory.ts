// Builds the guarded network pieces a job gets (core/net), bound to the job's
// abort signal and the operator's proxy, user agent, response-size limit and
// private-target policy.
import type { AppConfig } from '../config.ts'
import type { CrawlerFactory, DnsResolver, Extraction, Logger, NetworkPolicy } from '../tools/contract.ts'
import { createNetworkPolicy, systemLookup, type HostLookup, type TargetPolicy } from '../net/network-policy.ts'
import { createHttpClient, type GuardedHttpClient } from '../net/http-client.ts'
import { createCrawlerFactory } from '../net/crawler-factory.ts'
import { createDnsResolver } from '../net/dns-resolver.ts'

export interface NetFactory {
  policy (): NetworkPolicy
  /** A client bound to `signal`; close() it when the job ends (it pools connections). */
  http (signal?: AbortSignal): GuardedHttpClient
  /** Crawlers bound to `signal`; they read pages' links with `extract` (the job's pool) and log to `logger`. */
  crawlers (signal: AbortSignal, job: { extract: Pick<Extraction, 'call'>, logger: Logger }): CrawlerFactory
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

export function createNetFactory (config: AppConfig, overrides: NetworkOverrides = {}): NetFactory {
  const policy = createNetworkPolicy({ allowPrivateTargets: config.allowPrivateTargets, allowedTargets: overrides.allowedTargets })
  const common = {
    policy,
    userAgent: config.userAgent,
    proxyUrl: config.proxyUrl ?? undefined,
    lookup: overrides.lookup,
    maxResponseBytes: config.maxResponseBytes,
  }
  return {
    policy: () => policy,
    guard: { policy, lookup: overrides.lookup ?? systemLookup },
    http: (signal?: AbortSignal) => createHttpClient({ ...common, signal }),
    // Crawlee's own warnings and errors become lines of the job's pino logger (JSON, secrets scrubbed).
    crawlers: (signal, { extract, logger }) => createCrawlerFactory({ ...common, signal, extract, logger }),
    dns: (signal: AbortSignal) => createDnsResolver(signal),
  }
}

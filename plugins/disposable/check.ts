// One row per input: names first (deny, allow, list), then, for domains on no
// list, an MX lookup matched against disposable providers' mail hosts.
// Each domain is looked up once however many inputs share it.
import type { DnsResolver } from '../../core/tools/contract.ts'
import { domainOfInput, type DisposableMatcher } from './disposable-domains.ts'
import { lookupMxHosts, type MxHosts } from './mx-lookup.ts'
import type { DisposableRow } from './schema.ts'

export interface CheckEnvironment {
  matcher: DisposableMatcher
  /** null: no MX lookups (check_mx false). */
  resolver: DnsResolver | null
  onRows (rows: DisposableRow[]): Promise<void>
  onProgress? (done: number, total: number): void
  signal?: AbortSignal
}

// Enough parallel MX lookups to be quick, few enough not to flood the resolver.
const MX_PARALLELISM = 16
// Rows are pushed in slices this size as they finish.
const PUSH_BATCH = 100

export async function checkItems (inputs: readonly string[], env: CheckEnvironment): Promise<void> {
  const rows: (DisposableRow | null)[] = inputs.map(() => null)
  const pendingMx = new Map<string, number[]>()

  inputs.forEach((input, i) => {
    const { domain } = domainOfInput(input)
    if (!domain) {
      rows[i] = { input, domain: null, disposable: false, reason: 'invalid_input', matched: null, mx_checked: false, mx_hosts: [], mx_error: null }
      return
    }
    const verdict = env.matcher.byName(domain)
    if (verdict || !env.resolver) {
      rows[i] = { input, domain, ...(verdict ?? { disposable: false, reason: 'not_listed' as const, matched: null }), mx_checked: false, mx_hosts: [], mx_error: null }
      return
    }
    pendingMx.set(domain, [...(pendingMx.get(domain) ?? []), i])
  })

  let done = 0
  const emit = async (batch: DisposableRow[]) => {
    for (let start = 0; start < batch.length; start += PUSH_BATCH) {
      const slice = batch.slice(start, start + PUSH_BATCH)
      await env.onRows(slice)
      done += slice.length
      env.onProgress?.(done, inputs.length)
    }
  }
  await emit(rows.filter((r): r is DisposableRow => r !== null))

  const domains = [...pendingMx.keys()]
  let next = 0
  const worker = async () => {
    while (next < domains.length) {
      if (env.signal?.aborted) throw env.signal.reason
      const domain = domains[next++]
      const mx: MxHosts = await lookupMxHosts(env.resolver!, domain)
      const host = env.matcher.disposableMxHost(mx.hosts)
      await emit(pendingMx.get(domain)!.map(i => ({
        input: inputs[i],
        domain,
        disposable: host !== null,
        reason: host !== null ? 'disposable_mx' as const : 'not_listed' as const,
        matched: host,
        mx_checked: mx.error === null,
        mx_hosts: mx.hosts,
        mx_error: mx.error,
      })))
    }
  }
  await Promise.all(Array.from({ length: Math.min(MX_PARALLELISM, domains.length) }, worker))
}

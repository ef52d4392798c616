// ctx.dns: the guarded DNS resolver a job gets. Plugins look names up through
// it and never import node:dns, so every lookup is bound to the job's signal,
// has a time limit and keeps a bounded answer.
//
// node:dns's Resolver (c-ares) is used because it tells NXDOMAIN (ENOTFOUND)
// from "no record of this type" (ENODATA), has per-query timeouts and retries,
// and setServers() takes "127.0.0.1:5353", so tests point it at a local DNS
// server. Its timeout is per try and c-ares backs off between tries, so a
// deadline over the whole lookup cancels it too.
//
// The servers are the operator's (a tool setting) or the system's, which is
// often a loopback stub (127.0.0.53): the network policy does not apply to them,
// as it does not apply to PROXY_URL. What is looked up is not a connection.
import { Resolver } from 'node:dns/promises'
import { DnsLookupError, type DnsOptions, type DnsResolver, type MxRecord } from '../tools/contract.ts'

/** Records kept from one answer: more is not an answer a tool can use. */
export const DNS_MAX_ANSWERS = 100
/** Characters kept of one TXT record (its strings joined; SPF and DKIM fit). */
export const DNS_MAX_TXT_CHARS = 4096
const DEFAULTS = { servers: [] as readonly string[], timeoutMs: 5000, tries: 2 }
/** Slack over timeoutMs × tries for c-ares' back-off between tries. */
const DEADLINE_SLACK_MS = 1000

/** Node's code of a failed lookup; a cancelled query reads ECANCELLED. */
const codeOf = (err: unknown) => (err as { code?: string }).code ?? 'EUNKNOWN'

/** How much of an answer is kept (constants above; tests pass smaller ones). */
export interface DnsAnswerLimits { maxAnswers: number, maxTxtChars: number }

export function createDnsResolver (signal: AbortSignal, options: DnsOptions = {}, limits: DnsAnswerLimits = { maxAnswers: DNS_MAX_ANSWERS, maxTxtChars: DNS_MAX_TXT_CHARS }): DnsResolver {
  const settings = { ...DEFAULTS, ...options }
  const servers = [...(settings.servers ?? [])]

  /** One lookup on a resolver of its own, so cancelling it (deadline, job stop) touches no other. */
  async function lookup<T> (rrtype: string, name: string, query: (resolver: Resolver) => Promise<T>): Promise<T> {
    if (signal.aborted) throw signal.reason
    const resolver = new Resolver({ timeout: settings.timeoutMs, tries: settings.tries })
    if (servers.length > 0) resolver.setServers(servers)
    let expired = false
    const deadline = setTimeout(() => { expired = true; resolver.cancel() }, settings.timeoutMs * settings.tries + DEADLINE_SLACK_MS)
    const onAbort = () => resolver.cancel()
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      return await query(resolver)
    } catch (err) {
      if (signal.aborted) throw signal.reason
      throw new DnsLookupError(expired ? 'ETIMEOUT' : codeOf(err), name, rrtype)
    } finally {
      clearTimeout(deadline)
      signal.removeEventListener('abort', onAbort)
    }
  }

  const capped = <T>(records: T[]) => records.slice(0, limits.maxAnswers)

  return {
    mx: name => lookup('MX', name, async r => capped(await r.resolveMx(name)).map((record): MxRecord => ({ exchange: record.exchange, priority: record.priority }))),
    txt: name => lookup('TXT', name, async r => capped(await r.resolveTxt(name)).map(chunks => chunks.join('').slice(0, limits.maxTxtChars))),
    a: name => lookup('A', name, async r => capped(await r.resolve4(name))),
    aaaa: name => lookup('AAAA', name, async r => capped(await r.resolve6(name))),
    using: more => createDnsResolver(signal, { ...settings, ...more }, limits),
  }
}

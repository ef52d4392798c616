// Refuses requests whose Host or Origin says they were not meant for this
// service: the DNS-rebinding defence (an attacker's page whose name is made to
// resolve to 127.0.0.1 reaches a loopback service with `Host: evil.example`;
// see the MCP TypeScript SDK advisory GHSA-w48q-cv73-mx4w) and the cross-site
// defence for browsers that send `Origin`.
//
// It runs on every route, not only /mcp: a page rebound to a loopback service
// could otherwise sign up, try passwords against login (and read the key it
// answers, being same-origin after the rebinding) or open a progress socket.
// It runs before key resolution and the rate limit, so a refused request costs
// no database read.
//
// The rules, from config:
// - listening on loopback (HOST 127.0.0.0/8, localhost, ::1): Host must be a
//   loopback name or address (any port) or one of ALLOWED_HOSTS;
// - listening elsewhere: Host is checked only when ALLOWED_HOSTS is given (the
//   service cannot know the names it is reached by);
// - Origin, when the request carries one, must be a loopback origin or one of
//   ALLOWED_ORIGINS; checked while listening on loopback, or elsewhere when
//   ALLOWED_ORIGINS is given. Requests without Origin (curl, SDK clients,
//   server-to-server) are not affected by the Origin rule.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AppConfig } from '../config.ts'
import { forbidden } from '../errors.ts'
import { parseAddress } from '../net/ip-ranges.ts'

/** True for `localhost` and loopback IP literals (127.0.0.0/8, ::1, IPv4-mapped 127.x), brackets allowed. */
export function isLoopbackName (host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '')
  if (name === 'localhost') return true
  const bytes = parseAddress(name)
  if (!bytes) return false
  const zeroUpTo = (n: number) => bytes.subarray(0, n).every(b => b === 0)
  if (zeroUpTo(10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes[12] === 127
  return zeroUpTo(15) && bytes[15] === 1
}

/** The host name of a Host header, without port (`[::1]:3000` → `[::1]`), or null when malformed. */
export function hostNameOf (header: string): string | null {
  const value = header.trim().toLowerCase()
  const bracketed = /^(\[[0-9a-f:.]+\])(?::\d{1,5})?$/.exec(value)
  if (bracketed) return bracketed[1]!
  const plain = /^([a-z0-9.-]+)(?::\d{1,5})?$/.exec(value)
  return plain ? plain[1]! : null
}

interface HostOriginPolicy {
  checkHost: boolean
  checkOrigin: boolean
  /** Host names accepted besides loopback ones. */
  hosts: Set<string>
  origins: Set<string>
}

function hostOriginPolicy (config: Pick<AppConfig, 'host' | 'allowedHosts' | 'allowedOrigins'>): HostOriginPolicy {
  const loopback = isLoopbackName(config.host)
  return {
    checkHost: loopback || config.allowedHosts.length > 0,
    checkOrigin: loopback || config.allowedOrigins.length > 0,
    hosts: new Set(config.allowedHosts),
    origins: new Set(config.allowedOrigins),
  }
}

/** Why the request is refused, or null when it passes. */
function refusal (policy: HostOriginPolicy, host: string | undefined, origin: string | undefined): string | null {
  // No Host at all cannot come from a browser (the rebinding threat always sends one; Node
  // answers 400 to HTTP/1.1 without it): only a Host that names another site is refused.
  if (policy.checkHost && host !== undefined) {
    const name = hostNameOf(host)
    if (name === null || !(isLoopbackName(name) || policy.hosts.has(name))) {
      return 'This service does not answer for that Host name (DNS-rebinding protection); use its loopback address, or have the operator add the name to ALLOWED_HOSTS.'
    }
  }
  if (policy.checkOrigin && origin !== undefined) {
    let allowed = false
    try {
      const url = new URL(origin)
      allowed = policy.origins.has(url.origin) || ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackName(url.hostname))
    } catch { allowed = false }
    if (!allowed) return 'Requests from that Origin are not accepted; the operator can allow it with ALLOWED_ORIGINS.'
  }
  return null
}

const ACCEPTED_HOSTS_KEPT = 64

async function hostOriginGuard (app: FastifyInstance): Promise<void> {
  const policy = hostOriginPolicy(app.services.config)
  if (!policy.checkHost && !policy.checkOrigin) return
  // Host headers already accepted, so the common request (a known Host, no
  // Origin) skips the parse; the policy never changes while the app runs.
  // Only accepted values are kept, and few: a client sending endless Host
  // names gets the full check each time, never a larger set.
  const acceptedHosts = new Set<string>()
  // The callback form: it runs on every request, and an async hook costs a promise and a microtask turn each time.
  app.addHook('onRequest', (request, _reply, done) => {
    const origin = request.headers.origin
    const host = request.headers.host
    if (origin === undefined && host !== undefined && acceptedHosts.has(host)) return done()
    const reason = refusal(policy, host, typeof origin === 'string' ? origin : undefined)
    if (reason) return done(forbidden(reason))
    if (origin === undefined && host !== undefined && acceptedHosts.size < ACCEPTED_HOSTS_KEPT) acceptedHosts.add(host)
    done()
  })
}

export default fp(hostOriginGuard, { name: 'host-origin-guard', fastify: '5.x' })

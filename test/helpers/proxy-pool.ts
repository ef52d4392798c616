// A proxy chooser over one proxy, for the tests that hand a client, a crawler
// or the egress proxy the operator's proxy directly (core/net/proxy-pool.ts).
import { ProxyPool, type ProxyChooser } from '../../core/net/proxy-pool.ts'

export const proxyPoolOf = (url: string): ProxyChooser =>
  new ProxyPool([url], { rotation: 'request', failureLimit: 3, cooldownMs: 60_000, clock: () => new Date() }).chooser()!

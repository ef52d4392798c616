// Benchmark (issue 6): addresses/s of the `email` tool verifying 1,000
// addresses spread over 20 local domains, and proof that the per-domain
// session limit holds.
//
// - DNS: a dns2 server on 127.0.0.1 (UDP, port 0) answering MX for
//   d01.bench.test … d20.bench.test → mx.dNN.bench.test, A → 127.0.0.1.
// - SMTP: one smtp-server on 127.0.0.1 (no STARTTLS, no AUTH). A session is
//   counted for a domain from its first RCPT TO until it closes (the
//   verifier's sessions each serve one domain; the domain is not known
//   before RCPT). RCPT TO answers after BENCH_RCPT_DELAY_MS (default 20 ms:
//   loopback answers in microseconds, real MXs in tens to hundreds of ms, and
//   without a delay sessions barely overlap, so the limit would be untested);
//   one address in ten and every catch-all probe (nx-…) get 550.
// - Tool: buildApp + inject, a temp tools config enabling only email with
//   settings { dns_servers: [<dns2>], smtp_port: <smtp>, starttls: false,
//   per_domain_concurrency: BENCH_PER_DOMAIN (2), concurrency 10,
//   rcpts_per_session 10 }; a Pro account (1,000 rows per run).
// Run: node --import tsx scripts/bench/email-verify.ts   (BENCH_RCPT_DELAY_MS, BENCH_PER_DOMAIN to tune)
// Exits non-zero on errors and when the per-domain limit is exceeded (that is
// a correctness failure, not a speed goal).
import dns2 from 'dns2'
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import { goal, jobResults, printTable, proAccount, runJobToDone, runMain, startBenchApp } from './harness.ts'

const DOMAINS = 20
const ADDRESSES = 1000
const RCPT_DELAY_MS = Number(process.env.BENCH_RCPT_DELAY_MS ?? 20)
const PER_DOMAIN = Number(process.env.BENCH_PER_DOMAIN ?? 2)
const MAX_PARALLEL = 10
const domainName = (i: number) => `d${String(i + 1).padStart(2, '0')}.bench.test`

async function startDns (): Promise<{ address: string, queries: () => number, close (): Promise<void> }> {
  const { Packet } = dns2
  let queries = 0
  const server = dns2.createServer({
    udp: true,
    handle: (request: any, send: (response: any) => void) => {
      queries++
      const response = Packet.createResponseFromRequest(request)
      const [question] = request.questions
      const name = String(question.name).toLowerCase()
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 }
      const domain = /^d\d\d\.bench\.test$/.test(name)
      const mxHost = /^mx\.d\d\d\.bench\.test$/.test(name)
      if (!domain && !mxHost) { response.header.rcode = 3; send(response); return }
      if (question.type === Packet.TYPE.MX && domain) response.answers.push({ ...base, type: Packet.TYPE.MX, exchange: `mx.${name}`, priority: 10 } as never)
      if (question.type === Packet.TYPE.A && mxHost) response.answers.push({ ...base, type: Packet.TYPE.A, address: '127.0.0.1' } as never)
      send(response)
    },
  })
  const listening = await server.listen({ udp: { port: 0, address: '127.0.0.1' } })
  return { address: `127.0.0.1:${listening.udp!.port}`, queries: () => queries, close: async () => { await server.close() } }
}

interface SmtpStats { sessions: number, rcpts: number, maxOpen: number, maxPerDomain: Map<string, number> }

async function startSmtp (): Promise<{ port: number, stats: SmtpStats, close (): Promise<void> }> {
  const stats: SmtpStats = { sessions: 0, rcpts: 0, maxOpen: 0, maxPerDomain: new Map() }
  const openPerDomain = new Map<string, number>()
  const domainOfSession = new Map<string, string>()
  let open = 0
  const server = new SMTPServer({
    hideSTARTTLS: true,
    authOptional: true,
    disabledCommands: ['AUTH'],
    logger: false,
    onConnect (_session, callback) {
      stats.sessions++
      open++
      stats.maxOpen = Math.max(stats.maxOpen, open)
      callback()
    },
    onClose (session) {
      open--
      const domain = domainOfSession.get(session.id)
      if (domain) { domainOfSession.delete(session.id); openPerDomain.set(domain, openPerDomain.get(domain)! - 1) }
    },
    onRcptTo (address, session, callback) {
      stats.rcpts++
      const [local, domain] = address.address.toLowerCase().split('@') as [string, string]
      if (!domainOfSession.has(session.id)) {
        domainOfSession.set(session.id, domain)
        const now = (openPerDomain.get(domain) ?? 0) + 1
        openPerDomain.set(domain, now)
        stats.maxPerDomain.set(domain, Math.max(stats.maxPerDomain.get(domain) ?? 0, now))
      }
      const refuse = local.startsWith('nx-') || /^user\d*9$/.test(local)
      setTimeout(() => {
        if (refuse) callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }))
        else callback()
      }, RCPT_DELAY_MS)
    },
    onData (stream, _session, callback) { stream.resume(); stream.on('end', () => callback(new Error('no data expected'))) },
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.server.address() as AddressInfo).port, stats, close: () => new Promise<void>(resolve => server.close(() => resolve())) }
}

async function main (): Promise<void> {
  const dns = await startDns()
  const smtp = await startSmtp()
  const bench = await startBenchApp([{
    key: 'email',
    plugin: 'email',
    enabled: true,
    settings: {
      dns_servers: [dns.address], smtp_port: smtp.port, starttls: false, helo_name: 'bench.local',
      connect_timeout_ms: 10_000, command_timeout_ms: 15_000, greylist_retries: 0,
      per_domain_concurrency: PER_DOMAIN, concurrency: MAX_PARALLEL, rcpts_per_session: 10,
    },
  }])
  let failed = false
  try {
    const apiKey = await proAccount(bench.app)
    // Addresses interleaved across domains, as a real list would be.
    const emails = Array.from({ length: ADDRESSES }, (_, i) => `user${Math.floor(i / DOMAINS)}@${domainName(i % DOMAINS)}`)
    const { jobId, ms } = await runJobToDone(bench, apiKey, 'email', { emails })
    const rows = await jobResults(bench.app, apiKey, jobId, 1000)
    if (rows.length !== ADDRESSES) throw new Error(`the job returned ${rows.length} rows, expected ${ADDRESSES}`)
    const byStatus = new Map<string, number>()
    for (const r of rows) byStatus.set(`${r.status}/${r.reason}`, (byStatus.get(`${r.status}/${r.reason}`) ?? 0) + 1)
    const expectedRefused = emails.filter(e => /^user\d*9@/.test(e)).length
    const refused = byStatus.get('undeliverable/mailbox_not_found') ?? 0
    const accepted = byStatus.get('deliverable/accepted') ?? 0
    if (refused !== expectedRefused || accepted !== ADDRESSES - expectedRefused) {
      failed = true
      console.error(`unexpected outcomes: ${JSON.stringify(Object.fromEntries(byStatus))} (expected ${ADDRESSES - expectedRefused} deliverable, ${expectedRefused} mailbox_not_found)`)
    }
    const perDomain = [...smtp.stats.maxPerDomain.values()]
    const maxPerDomain = Math.max(...perDomain)
    printTable(`email verify: ${ADDRESSES} addresses over ${DOMAINS} local domains (dns2 + smtp-server on 127.0.0.1), RCPT delay ${RCPT_DELAY_MS} ms`, [
      ['measure', 'value'],
      ['job time, POST .. done (s)', (ms / 1000).toFixed(2)],
      ['addresses/s', (ADDRESSES / (ms / 1000)).toFixed(0)],
      ['outcomes', [...byStatus].map(([k, v]) => `${k} ${v}`).join(', ')],
      ['SMTP sessions / RCPT commands', `${smtp.stats.sessions} / ${smtp.stats.rcpts}`],
      ['DNS queries answered', dns.queries()],
      ['setting per_domain_concurrency', PER_DOMAIN],
      ['max concurrent sessions per domain observed', `${maxPerDomain} (domains reaching it: ${perDomain.filter(n => n === maxPerDomain).length} of ${perDomain.length})`],
      ['setting concurrency', MAX_PARALLEL],
      ['max concurrent sessions overall observed', smtp.stats.maxOpen],
    ])
    const limitHeld = maxPerDomain <= PER_DOMAIN && smtp.stats.maxOpen <= MAX_PARALLEL
    goal(`per-domain limit holds (max ${maxPerDomain} <= ${PER_DOMAIN}; overall ${smtp.stats.maxOpen} <= ${MAX_PARALLEL})`, limitHeld)
    if (!limitHeld) failed = true
  } finally {
    await bench.close()
    await smtp.close()
    await dns.close()
  }
  if (failed) process.exitCode = 1
}

runMain(main)

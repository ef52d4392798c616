// Composes syntax, DNS and SMTP checks into one row per address.
//
// Addresses are grouped by domain: DNS is looked up once per domain, and the
// SMTP sessions to a domain carry several recipients each (rcpts_per_session),
// with at most per_domain_concurrency of them open at once and at most
// concurrency overall. The catch-all probe (a random local part on
// the same domain) runs once per domain, on the first session that sees a
// recipient accepted, and its answer is shared by every row of that domain.
import { randomBytes } from 'node:crypto'
import { BlockedTargetError, type DnsResolver, type NetworkPolicy } from '../../core/tools/contract.ts'
import { classifyEmail } from '../lib/emails.ts'
import { checkEmailSyntax, needsSmtpUtf8, type SyntaxResult } from './syntax.ts'
import { lookupMailHosts, resolveHostAddresses } from './dns.ts'
import { SmtpError, SmtpSession, probeRecipient, type RecipientProbe } from './smtp.ts'
import { KeyedLimiter, Semaphore } from '../lib/concurrency.ts'
import { disposableMatch } from './disposable-flag.ts'
import type { EmailSettings } from './settings.ts'
import type { CatchAllCheck, DnsCheck, EmailRow, EmailStatus, MxAttempt, MxCheck, SmtpCheck } from './schema.ts'

export interface VerifyEnvironment {
  settings: EmailSettings
  resolver: DnsResolver
  network: NetworkPolicy
  signal: AbortSignal
  /** false: stop after DNS (status unknown unless DNS already decided). */
  smtpCheck: boolean
  /** Receives rows as they are finished (a domain's invalid rows, then one session's rows at a time). */
  onRows (rows: EmailRow[]): Promise<void>
  onProgress? (done: number, total: number): void
}

interface Candidate {
  input: string
  syntax: SyntaxResult
  role: boolean
  disposableMatched: string | null
}

interface Target { host: string, address: string }

interface Route {
  dns: DnsCheck
  targets: Target[]
  /** Hosts that could not be used (refused by the network policy, no address, DNS error). */
  unusable: MxAttempt[]
  /** First host in preference order, reported as mx_host when no session was opened. */
  firstHost: string | null
  /** Set when the domain's outcome is decided without SMTP. */
  verdict: { status: EmailStatus, reason: string } | null
}

// DNS lookups for many domains at once would flood the resolver; 16 in
// flight keeps a thousand-address job quick without looking like an attack.
const DNS_PARALLELISM = 16

// ---------------------------------------------------------------- verdicts

/** The row status an SMTP answer implies (RFC 5321 section 4.2 reply codes, RFC 3463 enhanced codes). */
function decideFromProbe (probe: RecipientProbe, catchAll: CatchAllCheck | null, disposable: boolean): { status: EmailStatus, reason: string } {
  const { code, enhanced, stage } = probe
  if (stage === 'mail_from') {
    // Our sender was refused: that says nothing about the recipient.
    return { status: 'unknown', reason: code >= 500 ? 'mail_from_rejected' : 'temporary_failure' }
  }
  if (code === 250 || code === 251) {
    if (catchAll?.accepted === true) return { status: 'risky', reason: 'catch_all' }
    if (disposable) return { status: 'risky', reason: 'disposable' }
    return { status: 'deliverable', reason: 'accepted' }
  }
  // 252: "cannot verify the user, but will accept and attempt delivery".
  if (code === 252) return { status: 'risky', reason: 'accepted_unverified' }
  if (code >= 400 && code < 500) return { status: 'unknown', reason: 'temporary_failure' }
  if (code >= 500) {
    // 5.7.x is a policy refusal (our IP is listed, relaying denied): about
    // us, not the mailbox.
    if (enhanced?.startsWith('5.7.')) return { status: 'unknown', reason: 'rcpt_policy_rejected' }
    if (code === 552 || enhanced === '5.2.2') return { status: 'risky', reason: 'mailbox_full' }
    return { status: 'undeliverable', reason: 'mailbox_not_found' }
  }
  return { status: 'unknown', reason: 'unexpected_reply' }
}

/** The row status when no SMTP session could be opened. */
function decideFromSessionError (error: SmtpError): { status: EmailStatus, reason: string } {
  switch (error.kind) {
    case 'timeout': return { status: 'unknown', reason: 'smtp_timeout' }
    case 'connect': return { status: 'unknown', reason: 'smtp_unreachable' }
    case 'rejected': return { status: 'unknown', reason: 'smtp_session_rejected' }
    default: return { status: 'unknown', reason: 'smtp_error' }
  }
}

// ---------------------------------------------------------------- rows

function syntaxCheck (s: SyntaxResult) {
  return { valid: s.valid, reason: s.reason, normalized: s.normalized, local: s.local, domain: s.domain, ascii_domain: s.ascii_domain, address_literal: s.address_literal }
}

interface RowParts {
  status: EmailStatus
  reason: string
  dns: DnsCheck | null
  mx: MxCheck | null
  smtp: SmtpCheck | null
  catchAll: CatchAllCheck | null
  greylisted?: boolean
}

function buildRow (c: Candidate, parts: RowParts): EmailRow {
  const { dns, mx, smtp, catchAll } = parts
  return {
    email: c.input,
    status: parts.status,
    reason: parts.reason,
    syntax_valid: c.syntax.valid,
    domain: c.syntax.ascii_domain ?? c.syntax.domain,
    mx_found: dns?.outcome === 'mx',
    mx_host: mx?.host ?? (dns?.outcome === 'mx' || dns?.outcome === 'implicit_mx' ? mx?.attempts[0]?.host ?? null : null),
    null_mx: dns?.outcome === 'null_mx',
    smtp_connected: smtp?.connected ?? false,
    smtp_code: smtp?.code ?? null,
    smtp_message: smtp?.message ?? null,
    // A mailbox the server refused is itself proof the domain is not catch-all.
    catch_all: catchAll?.accepted ?? (parts.reason === 'mailbox_not_found' ? false : null),
    role: c.role,
    disposable: c.disposableMatched !== null,
    greylisted: parts.greylisted ?? false,
    checks: {
      syntax: syntaxCheck(c.syntax),
      dns,
      mx,
      smtp,
      catch_all: catchAll,
      role: { role: c.role },
      disposable: { disposable: c.disposableMatched !== null, matched: c.disposableMatched },
    },
  }
}

function sessionFacts (session: SmtpSession | null) {
  return {
    connected: session !== null,
    banner: session?.banner?.text ?? null,
    greeting: session?.greeting ?? null,
    tls: session?.tls ?? false,
    tls_authorized: session?.tlsAuthorized ?? null,
    tls_error: session?.tlsError ?? null,
  }
}

function probeSmtpCheck (session: SmtpSession, probe: RecipientProbe): SmtpCheck {
  return { ...sessionFacts(session), stage: probe.stage, code: probe.code, enhanced_code: probe.enhanced, message: probe.message, attempts: probe.attempts, error: null }
}

function errorSmtpCheck (session: SmtpSession | null, error: SmtpError): SmtpCheck {
  return {
    ...sessionFacts(session),
    stage: null,
    code: error.reply?.code ?? null,
    enhanced_code: error.reply?.enhanced ?? null,
    message: error.reply?.text ?? null,
    attempts: 0,
    error: `${error.kind}: ${error.message}`,
  }
}

// ---------------------------------------------------------------- routing

const dnsCheck = (outcome: DnsCheck['outcome'], mx_records: DnsCheck['mx_records'] = [], error: string | null = null): DnsCheck => ({ outcome, mx_records, error })

function policyRefusal (network: NetworkPolicy, host: string, address: string): string | null {
  try {
    network.assertAllowedAddress(address, `MX ${host}`)
    return null
  } catch (err) {
    if (err instanceof BlockedTargetError) return err.reason
    if (err instanceof Error && err.name === 'BlockedTargetError') return (err as BlockedTargetError).reason ?? err.message
    throw err
  }
}

async function findRoute (syntax: SyntaxResult, env: VerifyEnvironment): Promise<Route> {
  const { settings, resolver, network } = env
  const unusable: MxAttempt[] = []
  const targets: Target[] = []

  if (syntax.address_literal && syntax.literal_ip) {
    // RFC 5321 section 4.1.3: the literal names the host; there is nothing to look up.
    const host = syntax.ascii_domain!
    const refusal = policyRefusal(network, host, syntax.literal_ip)
    if (refusal) unusable.push({ host, address: syntax.literal_ip, outcome: `refused: ${refusal}` })
    else targets.push({ host, address: syntax.literal_ip })
    return {
      dns: dnsCheck('address_literal'),
      targets,
      unusable,
      firstHost: host,
      verdict: targets.length ? null : { status: 'unknown', reason: 'mx_refused' },
    }
  }

  const lookup = await lookupMailHosts(resolver, syntax.ascii_domain!)
  const dns = dnsCheck(lookup.outcome, lookup.mx_records, lookup.error)
  const decided = (status: EmailStatus, reason: string): Route => ({ dns, targets, unusable, firstHost: null, verdict: { status, reason } })
  switch (lookup.outcome) {
    case 'nxdomain': return decided('undeliverable', 'domain_not_found')
    case 'null_mx': return decided('undeliverable', 'null_mx')
    case 'no_mail_host': return decided('undeliverable', 'no_mail_host')
    case 'dns_error': return decided('unknown', 'dns_error')
    default: break
  }

  for (const { host } of lookup.hosts.slice(0, settings.max_mx_hosts)) {
    const { addresses, error } = await resolveHostAddresses(resolver, host)
    if (addresses.length === 0) {
      unusable.push({ host, address: null, outcome: error ? `dns_error: ${error}` : 'no_address' })
      continue
    }
    // Every address is checked and one refusal refuses the host, as the
    // kernel's guard does: a name with a public and a private record is how
    // DNS rebinding starts.
    const refusal = addresses.map(address => ({ address, reason: policyRefusal(network, host, address) })).find(r => r.reason)
    if (refusal) {
      unusable.push({ host, address: refusal.address, outcome: `refused: ${refusal.reason}` })
      continue
    }
    // One address per host: a second one rarely answers differently, and
    // max_mx_hosts already bounds how long a dead domain can hold a job.
    targets.push({ host, address: addresses[0] })
  }
  const firstHost = lookup.hosts[0]?.host ?? null
  if (targets.length > 0) return { dns, targets, unusable, firstHost, verdict: null }
  const refused = unusable.some(u => u.outcome.startsWith('refused'))
  return { dns, targets, unusable, firstHost, verdict: { status: 'unknown', reason: refused ? 'mx_refused' : 'mx_unresolvable' } }
}

// ---------------------------------------------------------------- sessions

interface DomainState {
  route: Route
  catchAll: Promise<CatchAllCheck> | null
}

function randomLocalPart (): string {
  // Long and random enough that no real mailbox has it.
  return `nx-${randomBytes(9).toString('hex')}`
}

async function probeCatchAll (session: SmtpSession, syntax: SyntaxResult, env: VerifyEnvironment): Promise<CatchAllCheck> {
  const probe = `${randomLocalPart()}@${syntax.ascii_domain}`
  try {
    const answer = await probeRecipient(session, probe, probeOptions(env, false))
    const accepted = answer.stage !== 'rcpt_to' ? null
      : answer.code >= 200 && answer.code < 300 ? true
        : answer.code >= 500 ? false
          : null
    return { probe, accepted, code: answer.code, message: answer.message }
  } catch (err) {
    if (err instanceof SmtpError && err.kind !== 'aborted') return { probe, accepted: null, code: err.reply?.code ?? null, message: err.message }
    throw err
  }
}

function probeOptions (env: VerifyEnvironment, smtpUtf8: boolean) {
  return {
    mailFrom: env.settings.mail_from,
    smtpUtf8,
    retries: env.settings.greylist_retries,
    retryDelayMs: env.settings.greylist_retry_ms,
    signal: env.signal,
  }
}

/** Opens a session on the first target that answers; every attempt is recorded. */
async function openSession (state: DomainState, attempts: MxAttempt[], env: VerifyEnvironment): Promise<{ session: SmtpSession | null, target: Target | null, error: SmtpError | null }> {
  const { settings } = env
  let lastError: SmtpError | null = null
  for (const target of state.route.targets) {
    try {
      const session = await SmtpSession.open({
        address: target.address,
        port: settings.smtp_port,
        hostname: target.host,
        heloName: settings.helo_name,
        connectTimeoutMs: settings.connect_timeout_ms,
        commandTimeoutMs: settings.command_timeout_ms,
        startTls: settings.starttls,
        signal: env.signal,
      })
      attempts.push({ host: target.host, address: target.address, outcome: 'connected' })
      return { session, target, error: null }
    } catch (err) {
      if (!(err instanceof SmtpError) || err.kind === 'aborted') throw err
      attempts.push({ host: target.host, address: target.address, outcome: `${err.kind}: ${err.message}` })
      lastError = err
    }
  }
  return { session: null, target: null, error: lastError }
}

/** One SMTP session's worth of recipients: probe each, RSET between them, QUIT at the end. */
async function probeBatch (batch: Candidate[], state: DomainState, env: VerifyEnvironment): Promise<EmailRow[]> {
  const { route } = state
  const attempts: MxAttempt[] = [...route.unusable]
  let session: SmtpSession | null = null
  let target: Target | null = null
  // Set once no session can be had: the rest of the batch shares the answer
  // instead of waiting out another connect timeout per address.
  let sessionError: SmtpError | null = null
  // A session that drops mid-batch (421, idle timeout, too many recipients)
  // is reopened once; after a second drop the batch ends with errors.
  let reopensLeft = 1

  const mxCheck = (): MxCheck => ({ host: target?.host ?? null, address: target?.address ?? null, attempts: [...attempts] })
  const errorRow = (candidate: Candidate, error: SmtpError, on: SmtpSession | null) =>
    buildRow(candidate, { ...decideFromSessionError(error), dns: route.dns, mx: mxCheck(), smtp: errorSmtpCheck(on, error), catchAll: null })

  const usableSession = async (): Promise<SmtpSession | null> => {
    if (session && !session.closed) return session
    if (sessionError) return null
    if (session) {
      if (reopensLeft-- <= 0) {
        sessionError = session.closeReason ?? new SmtpError('session lost', 'closed')
        return null
      }
      session.destroy()
    }
    const opened = await openSession(state, attempts, env)
    session = opened.session
    target = opened.target
    if (!session) sessionError = opened.error ?? new SmtpError('no MX host to connect to', 'connect')
    return session
  }

  const ask = async (active: SmtpSession, candidate: Candidate): Promise<EmailRow> => {
    const smtpUtf8 = needsSmtpUtf8(candidate.syntax.local!)
    if (smtpUtf8 && !active.extensions.has('SMTPUTF8')) {
      // RFC 6531 section 3.4: without the extension a UTF-8 mailbox cannot be named.
      return buildRow(candidate, {
        status: 'unknown',
        reason: 'smtputf8_not_supported',
        dns: route.dns,
        mx: mxCheck(),
        smtp: { ...sessionFacts(active), stage: null, code: null, enhanced_code: null, message: null, attempts: 0, error: 'the server does not offer SMTPUTF8' },
        catchAll: null,
      })
    }
    const probe = await probeRecipient(active, candidate.syntax.normalized!, probeOptions(env, smtpUtf8))
    const accepted = probe.stage === 'rcpt_to' && probe.code >= 250 && probe.code <= 252
    let catchAll: CatchAllCheck | null = null
    if (accepted && env.settings.catch_all_check) {
      state.catchAll ??= probeCatchAll(active, candidate.syntax, env)
      catchAll = await state.catchAll
    } else if (state.catchAll) {
      // Already probed for this domain (by this or another session): report it.
      catchAll = await state.catchAll
    }
    return buildRow(candidate, {
      ...decideFromProbe(probe, catchAll, candidate.disposableMatched !== null),
      dns: route.dns,
      mx: mxCheck(),
      smtp: probeSmtpCheck(active, probe),
      catchAll,
      greylisted: probe.greylisted,
    })
  }

  const rows: EmailRow[] = []
  try {
    for (const candidate of batch) {
      if (env.signal.aborted) throw env.signal.reason
      for (;;) {
        const active = await usableSession()
        if (!active) {
          rows.push(errorRow(candidate, sessionError!, null))
          break
        }
        try {
          rows.push(await ask(active, candidate))
          break
        } catch (err) {
          if (!(err instanceof SmtpError) || err.kind === 'aborted') throw err
          active.destroy()
          if (reopensLeft <= 0) {
            rows.push(errorRow(candidate, err, active))
            break
          }
          // Otherwise loop: usableSession() reopens once and the address is asked again.
        }
      }
    }
  } finally {
    await (session as SmtpSession | null)?.quit()
  }
  return rows
}

// ---------------------------------------------------------------- entry point

function chunk<T> (items: T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

function prepareCandidate (input: string): Candidate {
  const syntax = checkEmailSyntax(input)
  return {
    input,
    syntax,
    role: syntax.valid ? classifyEmail(`${syntax.local}@${syntax.ascii_domain}`) === 'role' : false,
    disposableMatched: syntax.valid && !syntax.address_literal ? disposableMatch(syntax.ascii_domain!) : null,
  }
}

export async function verifyEmails (inputs: readonly string[], env: VerifyEnvironment): Promise<void> {
  const { settings } = env
  const total = inputs.length
  let done = 0
  const emit = async (rows: EmailRow[]) => {
    if (rows.length === 0) return
    await env.onRows(rows)
    done += rows.length
    env.onProgress?.(done, total)
  }

  const candidates = inputs.map(prepareCandidate)
  await emit(candidates.filter(c => !c.syntax.valid).map(c => buildRow(c, {
    status: 'undeliverable',
    reason: `invalid_syntax: ${c.syntax.reason}`,
    dns: null,
    mx: null,
    smtp: null,
    catchAll: null,
  })))

  const byDomain = new Map<string, Candidate[]>()
  for (const c of candidates) {
    if (!c.syntax.valid) continue
    const key = c.syntax.ascii_domain!
    byDomain.set(key, [...(byDomain.get(key) ?? []), c])
  }

  const dnsSlots = new Semaphore(DNS_PARALLELISM)
  const sessionSlots = new Semaphore(settings.concurrency)
  const domainSlots = new KeyedLimiter(settings.per_domain_concurrency)

  await Promise.all([...byDomain].map(async ([domain, group]) => {
    const route = await dnsSlots.run(() => findRoute(group[0].syntax, env))
    if (route.verdict || !env.smtpCheck) {
      const { status, reason } = route.verdict ?? { status: 'unknown' as const, reason: 'smtp_not_checked' }
      const mx: MxCheck | null = route.dns.outcome === 'mx' || route.dns.outcome === 'implicit_mx' || route.dns.outcome === 'address_literal'
        ? { host: null, address: null, attempts: [...route.unusable, ...route.targets.map(t => ({ host: t.host, address: t.address, outcome: 'not_tried' }))] }
        : null
      await emit(group.map(c => ({ ...buildRow(c, { status, reason, dns: route.dns, mx, smtp: null, catchAll: null }), mx_host: route.firstHost })))
      return
    }
    const state: DomainState = { route, catchAll: null }
    await Promise.all(chunk(group, settings.rcpts_per_session).map(batch =>
      domainSlots.run(domain, () => sessionSlots.run(async () => emit(await probeBatch(batch, state, env)))),
    ))
  }))
}

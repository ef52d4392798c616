// The disposable tool through the real kernel: buildApp + inject on a real
// database, a temp tools config whose disposable entry is the one in
// tools.config.json with test settings (MX lookups against a local dns2
// server; allow/deny lists per test).
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { parse } from 'csv-parse/sync'
import { build, signup, tempDir } from '../../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../../helpers/jobs.ts'
import { startDnsServer, type Zone } from '../email/fixtures/dns-server.ts'

type Teardown = Parameters<typeof tempDir>[0]

function writeToolsConfig (t: Teardown, settings: Record<string, unknown>): string {
  const file = JSON.parse(readFileSync(resolve('tools.config.json'), 'utf8'))
  const entry = structuredClone(file.tools.find((e: { key: string }) => e.key === 'disposable'))
  if (!entry) throw new Error('tools.config.json has no disposable entry')
  entry.settings = { ...entry.settings, ...settings }
  const path = join(tempDir(t, 'disposable-config-'), 'tools.config.json')
  writeFileSync(path, JSON.stringify({ tools: [entry], retired: [] }, null, 2))
  return path
}

const ZONE: Zone = {
  // A fresh domain of a known provider: on no list, but its MX is mail.tm's.
  'fresh-burner.test': { MX: [{ exchange: 'in.mail.tm', priority: 10 }] },
  'acme.test': { MX: [{ exchange: 'mx.acme.test', priority: 10 }] },
  'mute.test': { silent: true },
}

async function buildDisposable (t: Teardown, dns: string, settings: Record<string, unknown> = {}): Promise<FastifyInstance> {
  // No ALLOW_PRIVATE_TARGETS: the tool contacts no mail server, only the configured resolver.
  return build(t, { env: { TOOLS_CONFIG: writeToolsConfig(t, { dns_servers: [dns], dns_timeout_ms: 300, dns_tries: 1, ...settings }) } })
}

async function runCheck (app: FastifyInstance, apiKey: string, params: Record<string, unknown>) {
  const res = await startJob(app, apiKey, params, 'disposable')
  if (res.statusCode !== 202) throw new Error(`tool-run answered ${res.statusCode}: ${res.body}`)
  const id = res.json().job_id as string
  const status = await waitForEnd(app, apiKey, id, 30_000)
  const rows = (await app.inject({ url: `/api/tool-run/${id}/results?limit=1000`, headers: { 'x-api-key': apiKey } })).json().results as Array<Record<string, any>>
  const byInput = (input: string) => {
    const row = rows.find(r => r.input === input)
    if (!row) throw new Error(`no row for ${input}`)
    return row
  }
  return { id, status, rows, byInput }
}

t.test('tool-run disposable: addresses, bare domains, a subdomain, an MX match and clean domains', async t => {
  const dns = await startDnsServer(t, ZONE)
  const app = await buildDisposable(t, dns.address)
  const user = await signup(app)
  const items = ['jane@mailinator.com', 'yopmail.com', 'x.mailinator.com', 'Bob@Fresh-Burner.test', 'sales@acme.test', 'acme.test', 'not a domain', 'yopmail.com']
  const { id, status, rows, byInput } = await runCheck(app, user.apiKey, { items })
  t.match(status, { status: 'done', records: 7, error: null, warning: null })
  t.equal(rows.length, 7, 'duplicates checked once')
  t.same(byInput('jane@mailinator.com'), { input: 'jane@mailinator.com', domain: 'mailinator.com', disposable: true, reason: 'listed', matched: 'mailinator.com', mx_checked: false, mx_hosts: [], mx_error: null })
  t.match(byInput('yopmail.com'), { domain: 'yopmail.com', disposable: true, reason: 'listed', matched: 'yopmail.com' })
  t.match(byInput('x.mailinator.com'), { domain: 'x.mailinator.com', disposable: true, reason: 'listed_parent', matched: 'mailinator.com' })
  t.match(byInput('Bob@Fresh-Burner.test'), { domain: 'fresh-burner.test', disposable: true, reason: 'disposable_mx', matched: 'in.mail.tm', mx_checked: true, mx_hosts: ['in.mail.tm'] })
  t.match(byInput('sales@acme.test'), { domain: 'acme.test', disposable: false, reason: 'not_listed', matched: null, mx_checked: true, mx_hosts: ['mx.acme.test'] })
  t.match(byInput('acme.test'), { disposable: false, reason: 'not_listed' })
  t.match(byInput('not a domain'), { domain: null, disposable: false, reason: 'invalid_input' })
  t.same(dns.queries.filter(q => q.type === 'MX').map(q => q.name).sort(), ['acme.test', 'fresh-burner.test'], 'listed names need no lookup; acme.test is looked up once for two inputs')

  // Arrays go to CSV as JSON text.
  const csv = parse((await app.inject({ url: `/api/tool-run/${id}/results.csv`, headers: { 'x-api-key': user.apiKey } })).rawPayload, { bom: true, columns: true }) as Array<Record<string, string>>
  t.same(Object.keys(csv[0]!), ['input', 'domain', 'disposable', 'reason', 'matched', 'mx_checked', 'mx_hosts', 'mx_error'])
  t.same(JSON.parse(csv.find(r => r.input === 'Bob@Fresh-Burner.test')!.mx_hosts!), ['in.mail.tm'])
  t.equal(csv.find(r => r.input === 'jane@mailinator.com')!.disposable, 'true')
})

t.test('allow and deny lists from the tools config override the list and the MX match', async t => {
  const dns = await startDnsServer(t, ZONE)
  const app = await buildDisposable(t, dns.address, { allow: ['mailinator.com', 'fresh-burner.test'], deny: ['acme.test'], disposable_mx_hosts: ['mx.acme.test'] })
  const user = await signup(app)
  const { status, byInput } = await runCheck(app, user.apiKey, { emails: ['jane@mailinator.com', 'bob@fresh-burner.test', 'sales@acme.test'], domains: ['x.mailinator.com', 'sub.acme.test', 'yopmail.com'] })
  t.match(status, { status: 'done', records: 6 })
  t.match(byInput('jane@mailinator.com'), { disposable: false, reason: 'allow_list', matched: 'mailinator.com' }, 'allow wins over the package list')
  t.match(byInput('x.mailinator.com'), { disposable: false, reason: 'allow_list', matched: 'mailinator.com' }, 'allow covers subdomains')
  t.match(byInput('bob@fresh-burner.test'), { disposable: false, reason: 'allow_list', mx_checked: false }, 'allow wins over the MX match, without a lookup')
  t.match(byInput('sales@acme.test'), { disposable: true, reason: 'deny_list', matched: 'acme.test' })
  t.match(byInput('sub.acme.test'), { disposable: true, reason: 'deny_list', matched: 'acme.test' }, 'deny covers subdomains')
  t.match(byInput('yopmail.com'), { disposable: true, reason: 'listed' }, 'the list still applies to everything else')
  t.same(dns.queries, [], 'every input was decided by name')
})

t.test('check_mx false, a failed MX lookup, and the per-run ceiling', async t => {
  const dns = await startDnsServer(t, ZONE)
  const app = await buildDisposable(t, dns.address)
  const user = await signup(app)

  const noMx = await runCheck(app, user.apiKey, { items: ['bob@fresh-burner.test'], check_mx: false })
  t.match(noMx.byInput('bob@fresh-burner.test'), { disposable: false, reason: 'not_listed', mx_checked: false })
  t.equal(dns.queries.length, 0)

  const mute = await runCheck(app, user.apiKey, { items: ['x@mute.test'] })
  t.match(mute.status, { status: 'done', records: 1, warning: /1 MX lookup failed/ })
  t.match(mute.rows[0], { disposable: false, reason: 'not_listed', mx_checked: false, mx_error: 'ETIMEOUT' })

  const items = Array.from({ length: 210 }, (_, i) => `user@burner${i}.mailinator.com`)
  const capped = await runCheck(app, user.apiKey, { items })
  t.match(capped.status, { status: 'done', records: 200, warning: /Only the first 200 of 210 items/ })
  t.equal(capped.rows.length, 200)
  t.ok(capped.rows.every(r => r.reason === 'listed_parent'))

  // Only blanks: refused before the job starts (the schema's alternatives), so nothing is charged.
  const callsBefore = (await usageOf(app, user.apiKey)).calls_today
  const empty = await startJob(app, user.apiKey, { items: [' '] }, 'disposable')
  t.equal(empty.statusCode, 400)
  t.match(empty.json().detail, /params\.items, params\.emails, params\.domains is required/)
  t.equal((await usageOf(app, user.apiKey)).calls_today, callsBefore, 'not charged')
})

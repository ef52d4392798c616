// The disposable tool through run(ctx), with MX lookups answered by a local
// dns2 server and settings from a fake context.
import t from 'tap'
import { Compile } from 'typebox/compile'
import tool from '../../../plugins/disposable/index.ts'
import type { DisposableRow } from '../../../plugins/disposable/schema.ts'
import { toolContext, type ToolContextOptions } from '../../helpers/tool-context.ts'
import { startDnsServer } from '../email/fixtures/dns-server.ts'

const rowCheck = Compile(tool.row)

async function check (input: Record<string, unknown>, options: ToolContextOptions = {}) {
  const run = toolContext<DisposableRow>(tool, input, options)
  await tool.run(run.ctx as never)
  for (const row of run.rows) {
    if (!rowCheck.Check(row)) throw new Error(`row does not match the schema: ${JSON.stringify([...rowCheck.Errors(row)].slice(0, 3))}`)
  }
  const byInput = (input: string) => {
    const row = run.rows.find(r => r.input === input)
    if (!row) throw new Error(`no row for ${input}`)
    return row
  }
  return { ...run, byInput }
}

const ZONE = {
  // A fresh domain of a known provider: not on the list, but its MX is.
  'fresh-burner.test': { MX: [{ exchange: 'in.mail.tm', priority: 10 }] },
  // A domain whose MX lives under a listed domain.
  'relay-burner.test': { MX: [{ exchange: 'mx2.yopmail.com', priority: 20 }, { exchange: 'mx1.yopmail.com', priority: 10 }] },
  'acme.test': { MX: [{ exchange: 'mx.acme.test', priority: 10 }] },
  'private-burner.test': { MX: [{ exchange: 'mx.hidden-burner.test', priority: 10 }] },
  'nomx.test': { A: ['192.0.2.1'] },
  'mute.test': { silent: true },
}

t.test('listed domains, subdomains, MX matches and clean domains', async t => {
  const dns = await startDnsServer(t, ZONE)
  const run = await check({
    items: ['jane@mailinator.com', 'x.mailinator.com', 'bob@fresh-burner.test', 'relay-burner.test', 'sales@acme.test', 'nomx.test', 'not a domain'],
  }, { settings: { dns_servers: [dns.address], dns_timeout_ms: 500, dns_tries: 1 } })

  t.equal(run.rows.length, 7)
  t.same(run.byInput('jane@mailinator.com'), { input: 'jane@mailinator.com', domain: 'mailinator.com', disposable: true, reason: 'listed', matched: 'mailinator.com', mx_checked: false, mx_hosts: [], mx_error: null })
  t.match(run.byInput('x.mailinator.com'), { disposable: true, reason: 'listed_parent', matched: 'mailinator.com', mx_checked: false })
  t.match(run.byInput('bob@fresh-burner.test'), { domain: 'fresh-burner.test', disposable: true, reason: 'disposable_mx', matched: 'in.mail.tm', mx_checked: true, mx_hosts: ['in.mail.tm'] })
  t.match(run.byInput('relay-burner.test'), { disposable: true, reason: 'disposable_mx', matched: 'mx1.yopmail.com', mx_hosts: ['mx1.yopmail.com', 'mx2.yopmail.com'] })
  t.match(run.byInput('sales@acme.test'), { disposable: false, reason: 'not_listed', matched: null, mx_checked: true, mx_hosts: ['mx.acme.test'] })
  t.match(run.byInput('nomx.test'), { disposable: false, reason: 'not_listed', mx_checked: true, mx_hosts: [] })
  t.match(run.byInput('not a domain'), { domain: null, disposable: false, reason: 'invalid_input' })

  const mxQueries = dns.queries.filter(q => q.type === 'MX').map(q => q.name).sort()
  t.same(mxQueries, ['acme.test', 'fresh-burner.test', 'nomx.test', 'relay-burner.test'], 'listed domains need no lookup')
  t.match(run.stages.at(-1), /Checked 7 of 7 items/)
})

t.test('allow and deny lists from settings; extra disposable MX hosts', async t => {
  const dns = await startDnsServer(t, ZONE)
  const run = await check({ emails: ['a@mailinator.com', 'b@fresh-burner.test', 'c@acme.test', 'd@private-burner.test'], domains: ['yopmail.com'] }, {
    settings: {
      dns_servers: [dns.address],
      allow: ['mailinator.com', 'fresh-burner.test', 'yopmail.com'],
      deny: ['acme.test', 'yopmail.com'],
      disposable_mx_hosts: ['mx.hidden-burner.test'],
    },
  })
  t.match(run.byInput('a@mailinator.com'), { disposable: false, reason: 'allow_list', matched: 'mailinator.com' }, 'allow wins over the list')
  t.match(run.byInput('b@fresh-burner.test'), { disposable: false, reason: 'allow_list', mx_checked: false }, 'allow wins over the MX match, without a lookup')
  t.match(run.byInput('c@acme.test'), { disposable: true, reason: 'deny_list', matched: 'acme.test' })
  t.match(run.byInput('yopmail.com'), { disposable: true, reason: 'deny_list' }, 'deny wins over allow')
  t.match(run.byInput('d@private-burner.test'), { disposable: true, reason: 'disposable_mx', matched: 'mx.hidden-burner.test' })
  t.same(dns.queries.filter(q => q.type === 'MX').map(q => q.name), ['private-burner.test'])
})

t.test('check_mx false makes no DNS query; duplicates are checked once', async t => {
  const dns = await startDnsServer(t, ZONE)
  const run = await check({ items: ['bob@fresh-burner.test', 'bob@fresh-burner.test', 'mailinator.com'], check_mx: false }, { settings: { dns_servers: [dns.address] } })
  t.equal(run.rows.length, 2)
  t.match(run.byInput('bob@fresh-burner.test'), { disposable: false, reason: 'not_listed', mx_checked: false })
  t.equal(dns.queries.length, 0)
})

t.test('a failed MX lookup is reported on the row and warned about', async t => {
  const dns = await startDnsServer(t, ZONE)
  const run = await check({ items: ['x@mute.test'] }, { settings: { dns_servers: [dns.address], dns_timeout_ms: 200, dns_tries: 1 } })
  t.match(run.rows[0], { disposable: false, reason: 'not_listed', mx_checked: false, mx_error: 'ETIMEOUT' })
  t.match(run.warnings, [/1 MX lookup failed/])
})

t.test('input and settings errors; the row limit', async t => {
  await t.rejects(tool.run(toolContext(tool, { items: [] }).ctx as never), { name: 'InputError' })
  t.throws(() => toolContext(tool, { items: ['a.test'] }, { settings: { allow: 'mailinator.com' } }), { name: 'ConfigError', message: /"disposable" tool's setting "allow" must be array/ })
  const run = await check({ items: ['mailinator.com', 'yopmail.com', 'guerrillamail.com'], check_mx: false }, { cap: 2 })
  t.equal(run.rows.length, 2)
  t.match(run.warnings, [/first 2 of 3/])
})

// Pure matching: the package list, subdomains, allow and deny lists, MX hosts.
import t from 'tap'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { DisposableMatcher, LIST_PACKAGE, domainOfInput, loadDisposableList } from '../../../plugins/disposable/disposable-domains.ts'

const require = createRequire(import.meta.url)

t.test('the list package: its size matches what README.md states', async t => {
  const domains = require(LIST_PACKAGE) as string[]
  const wildcards = require(`${LIST_PACKAGE}/wildcard.json`) as string[]
  t.comment(`${LIST_PACKAGE}: ${domains.length} domains, ${wildcards.length} wildcard entries`)
  t.ok(domains.length > 100_000, `${domains.length} domains`)
  const readme = readFileSync(new URL('../../../plugins/disposable/README.md', import.meta.url), 'utf8')
  const stated = /(\d[\d,]*) domains/.exec(readme)?.[1]?.replace(/,/g, '')
  t.equal(Number(stated), domains.length, 'README.md states the count the package holds')
  const statedWildcards = /(\d[\d,]*) wildcard/.exec(readme)?.[1]?.replace(/,/g, '')
  t.equal(Number(statedWildcards), wildcards.length)
})

t.test('listed domains and their subdomains', async t => {
  const matcher = new DisposableMatcher()
  for (const domain of ['mailinator.com', 'yopmail.com', 'guerrillamail.com', '10minutemail.com']) {
    t.same(matcher.byName(domain), { disposable: true, reason: 'listed', matched: domain }, domain)
  }
  t.same(matcher.byName('x.mailinator.com'), { disposable: true, reason: 'listed_parent', matched: 'mailinator.com' })
  t.same(matcher.byName('a.b.yopmail.com'), { disposable: true, reason: 'listed_parent', matched: 'yopmail.com' })
  for (const domain of ['gmail.com', 'outlook.com', 'acme.test', 'mailinator.com.evil.test']) {
    t.equal(matcher.byName(domain), null, `${domain} is on no list`)
  }
})

t.test('Unicode entries of the list are matched as A-labels, without folding to look-alikes', async t => {
  const list = loadDisposableList()
  t.ok(list.domains.has('xn--gmal-nza.net'), 'gmaıl.net (dotless i) is listed as its A-label')
  const matcher = new DisposableMatcher()
  t.match(matcher.byName(domainOfInput('user@gmaıl.net').domain!), { reason: 'listed' })
  t.equal(matcher.byName('gmail.net'), null, 'the real gmail.net is not caught by its look-alike')
})

t.test('allow wins over the list; deny wins over everything; both cover subdomains', async t => {
  const matcher = new DisposableMatcher({ allow: ['Mailinator.com', 'both.test'], deny: ['burner.test', 'both.test'] })
  t.same(matcher.byName('mailinator.com'), { disposable: false, reason: 'allow_list', matched: 'mailinator.com' })
  t.same(matcher.byName('team.mailinator.com'), { disposable: false, reason: 'allow_list', matched: 'mailinator.com' })
  t.same(matcher.byName('burner.test'), { disposable: true, reason: 'deny_list', matched: 'burner.test' })
  t.same(matcher.byName('x.burner.test'), { disposable: true, reason: 'deny_list', matched: 'burner.test' })
  t.same(matcher.byName('both.test'), { disposable: true, reason: 'deny_list', matched: 'both.test' })
  t.match(matcher.byName('yopmail.com'), { reason: 'listed' }, 'the rest of the list still applies')
})

t.test('MX hosts of disposable providers', async t => {
  const matcher = new DisposableMatcher({ allow: ['forwarder.test'], extraMxHosts: ['MX.Private-Burner.test.'] })
  t.equal(matcher.disposableMxHost(['in.mail.tm']), 'in.mail.tm', 'a known disposable MX host')
  t.equal(matcher.disposableMxHost(['mx.acme.test', 'mx1.yopmail.com']), 'mx1.yopmail.com', 'a host under a listed domain')
  t.equal(matcher.disposableMxHost(['mx.private-burner.test']), 'mx.private-burner.test', 'an operator-added host')
  t.equal(matcher.disposableMxHost(['aspmx.l.google.com', 'alt1.aspmx.l.google.com']), null)
  t.equal(new DisposableMatcher({ allow: ['yopmail.com'] }).disposableMxHost(['mx1.yopmail.com']), null, 'allow-listed names never count')
  t.equal(matcher.disposableMxHost([]), null)
})

t.test('the domain of an input', async t => {
  t.same(domainOfInput('Jane@Mailinator.COM'), { domain: 'mailinator.com', error: null })
  t.same(domainOfInput(' mailinator.com. '), { domain: 'mailinator.com', error: null })
  t.same(domainOfInput('@yopmail.com'), { domain: 'yopmail.com', error: null })
  t.same(domainOfInput('user@bücher.example'), { domain: 'xn--bcher-kva.example', error: null })
  t.match(domainOfInput('user@[192.0.2.1]'), { domain: null, error: /address literal/ })
  t.match(domainOfInput('user@192.0.2.1'), { domain: null })
  t.match(domainOfInput('not a domain'), { domain: null })
  t.match(domainOfInput('localhost'), { domain: null })
  t.match(domainOfInput('user@'), { domain: null, error: 'no domain' })
})

// The README's Operations section: the scrape configuration and the alert rules are valid YAML, and every
// metric the rules query, and every label value they select, is one the service serves.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { ADMIN_KEY, build } from '../helpers/build.ts'

const section = (() => {
  const readme = readFileSync('README.md', 'utf8')
  const start = readme.indexOf('## Operations')
  const end = readme.indexOf('\n## ', start + 1)
  return readme.slice(start, end === -1 ? undefined : end)
})()
const blocks = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map(m => parse(m[1]!))

t.test('the scrape configuration and the three alert rules parse, and their metrics exist', async t => {
  t.equal(blocks.length, 2, 'a scrape configuration and a rules file')
  const [scrape, rules] = blocks
  t.ok(scrape.scrape_configs.every((c: any) => (c.metrics_path ?? '/metrics') === '/metrics' && c.static_configs.length > 0), 'every job scrapes /metrics')
  const alerts = rules.groups.flatMap((g: any) => g.rules)
  t.same(alerts.map((r: any) => r.alert), ['JobErrorRateHigh', 'JobQueueWaitLong', 'UpstreamBlockedRateHigh'])
  const app = await build(t)
  // Every metric the exposition declares (a histogram with no observation yet has no sample, but its TYPE line).
  const exposition = (await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_KEY}` } })).body
  const served = new Set(exposition
    .split('\n').flatMap(line => {
      const [, name, type] = /^# TYPE (\S+) (\S+)$/.exec(line) ?? []
      if (!name) return []
      return type === 'histogram' ? [name, `${name}_bucket`, `${name}_sum`, `${name}_count`] : [name]
    }))
  for (const rule of alerts) {
    t.ok(rule.expr && rule.for && rule.annotations?.summary, `${rule.alert}: expr, for, summary`)
    const metrics = [...new Set(String(rule.expr).match(/\b[a-z_]+_(?:total|bucket|seconds|count)\b/g))]
    t.ok(metrics.length > 0, `${rule.alert} queries metrics`)
    for (const metric of metrics) t.ok(served.has(metric), `${rule.alert}: ${metric} is served`)
    // Each label value a selector names is one a served series carries (every outcome's series exists from the start).
    for (const [, metric, selector] of String(rule.expr).matchAll(/\b([a-z_]+)\{([^}]*)\}/g)) {
      for (const [, label, values] of selector!.matchAll(/(\w+)=~?"([^"]*)"/g)) {
        for (const value of values!.split('|')) t.ok(new RegExp(`^${metric}\\{[^}]*\\b${label}="${value}"`, 'm').test(exposition), `${rule.alert}: ${metric}{${label}="${value}"} is served`)
      }
    }
  }
})

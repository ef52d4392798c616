// GET /docs: the OpenAPI document as one HTML page (no script, no CDN: a
// self-hosted server may have no internet, and the page needs none). Its
// stylesheet is served from /assets/docs.css (core/web): the pages' CSP
// (core/web/security-headers.ts) refuses inline styles.
import { escapeHtml } from './html.ts'

type Doc = Record<string, any>

export const DOCS_STYLESHEET = `body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;color:#1d1d1f}
nav{width:320px;height:100vh;overflow:auto;position:sticky;top:0;padding:1rem;background:#f5f5f7;font-size:13px}
nav ul{padding-left:1rem;margin:.2rem 0}main{flex:1;padding:1rem 2rem;max-width:960px}
section{border-top:1px solid #ddd;padding:.5rem 0}pre{background:#f5f5f7;padding:.6rem;overflow:auto;font-size:12px}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:.2rem .4rem;text-align:left;vertical-align:top}
.m{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;color:#fff;font-size:12px;padding:.1rem .3rem}
.get{background:#2f7ed8}.post{background:#2e9e5b}.put{background:#c77c02}.delete{background:#c0392b}.auth{color:#666;font-size:13px}
`

const escape = (s: unknown) => escapeHtml(String(s))

/** Follows a local $ref (#/components/...) one level, for display. */
function resolve (doc: Doc, value: Doc | undefined): Doc | undefined {
  if (!value || typeof value.$ref !== 'string') return value
  return value.$ref.replace(/^#\//, '').split('/').reduce((node: Doc | undefined, key: string) => node?.[key], doc)
}

const pre = (value: unknown) => `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`

function operationHtml (doc: Doc, path: string, method: string, op: Doc): string {
  const id = escape(op.operationId)
  const parts = [`<section id="${id}"><h3><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h3>`]
  if (op.summary && op.summary !== `${method.toUpperCase()} ${path}`) parts.push(`<p>${escape(op.summary)}</p>`)
  if (op.description) parts.push(`<p>${escape(op.description)}</p>`)
  const auth = Array.isArray(op.security) && op.security.length === 0 ? 'none' : op.security?.[0]?.bearerAuth ? 'Authorization: Bearer' : 'x-api-key'
  parts.push(`<p class="auth">Auth: ${escape(auth)}</p>`)
  if (op.parameters?.length) {
    parts.push('<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>')
    for (const p of op.parameters) parts.push(`<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${escape(JSON.stringify(p.schema))}</code>${p.description ? ` ${escape(p.description)}` : ''}</td></tr>`)
    parts.push('</table>')
  }
  const body = op.requestBody?.content?.['application/json']?.schema
  if (body) parts.push(`<details><summary>Request body</summary>${pre(body)}</details>`)
  for (const [status, response] of Object.entries<Doc>(op.responses ?? {})) {
    const r = resolve(doc, response) ?? {}
    const content = Object.entries<Doc>(r.content ?? {})
    const schema = content[0]?.[1]?.schema
    const shown = schema?.$ref ? { ...resolve(doc, schema), $ref: schema.$ref } : schema
    parts.push(`<details><summary>${escape(status)}: ${escape(r.description ?? '')}${content.length ? ` (${escape(content.map(([t]) => t).join(', '))})` : ''}</summary>${shown ? pre(shown) : ''}</details>`)
  }
  parts.push('</section>')
  return parts.join('\n')
}

export function renderDocsPage (doc: Doc): string {
  const byTag = new Map<string, string[]>()
  const toc = new Map<string, string[]>()
  for (const [path, methods] of Object.entries<Doc>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Doc>(methods)) {
      const tag = op.tags?.[0] ?? 'Other'
      if (!byTag.has(tag)) { byTag.set(tag, []); toc.set(tag, []) }
      byTag.get(tag)!.push(operationHtml(doc, path, method, op))
      toc.get(tag)!.push(`<li><a href="#${escape(op.operationId)}">${escape(method.toUpperCase())} ${escape(path)}</a></li>`)
    }
  }
  const sections = [...byTag].map(([tag, ops]) => `<h2 id="tag-${escape(tag)}">${escape(tag)}</h2>\n${ops.join('\n')}`)
  const nav = [...toc].map(([tag, items]) => `<h4>${escape(tag)}</h4><ul>${items.join('')}</ul>`)
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info?.title)} ${escape(doc.info?.version)}</title>
<link rel="stylesheet" href="/assets/docs.css"></head><body>
<nav><strong>${escape(doc.info?.title)}</strong><p>OpenAPI ${escape(doc.openapi)} · version ${escape(doc.info?.version)}<br><a href="/openapi.json">openapi.json</a> · <a href="/mcp/docs.md">agent guide</a></p>${nav.join('\n')}</nav>
<main><h1>${escape(doc.info?.title)}</h1><p>${escape(doc.info?.description ?? '')}</p>
${sections.join('\n')}
</main></body></html>
`
}

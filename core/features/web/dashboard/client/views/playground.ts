// Pick a tool, fill the form generated from its params schema, run it, and
// watch a progress bar and the stage text over the job's WebSocket; the rows
// follow when it ends. "Run again" (#playground?rerun=<job>) fills the form
// with a past job's stored params.
import { ApiError, call, progressSocket, type JobInput, type JobStatus, type Monitor, type Started, type ToolInfo } from '../api.ts'
import { announce, copyText, errorBox, field, h, fill } from '../dom.ts'
import { curlCommand, mcpCall, type ManifestTool } from '../copy-call.ts'
import { cancelJob, outcomeOf } from '../job-outcome.ts'
import { generateForm, labelOf, type GeneratedForm, type JsonSchema } from '../schema-form.ts'
import type { Dashboard, View } from '../context.ts'
import { renderResults } from './results.ts'

/** "acme.com: 3 of up to 25 pages scanned" → 0.12; null when the stage gives no count. */
export function stageFraction (stage: string): number | null {
  const m = /(\d+)\s+of\s+(?:up\s+to\s+)?(\d+)/i.exec(stage)
  if (!m || Number(m[2]) <= 0) return null
  return Math.min(1, Number(m[1]) / Number(m[2]))
}

interface ProgressMessage { type: 'progress', records: number, stage: string }
interface FinalMessage { type: 'done' | 'error', job?: JobStatus, detail?: string }

/** Follows a job to its end: the socket, and status polls when the socket cannot be used. Returns the call that stops following. */
export function follow (dashboard: Dashboard, jobId: string, onProgress: (m: ProgressMessage) => void, onEnd: (job: JobStatus) => void): () => void {
  let ended = false
  const end = (job: JobStatus) => { if (!ended) { ended = true; onEnd(job) } }
  const poll = async () => {
    while (!ended) {
      try {
        const job = await call<JobStatus>('GET', `/api/jobs/${encodeURIComponent(jobId)}`)
        if (job.status !== 'running') { end(job); return }
        onProgress({ type: 'progress', records: job.records, stage: job.stage })
      } catch (err) {
        if (err instanceof ApiError && err.status < 500 && err.status !== 429) return
      }
      await new Promise(resolve => setTimeout(resolve, 2000))
    }
  }
  const socket = progressSocket(jobId)
  const stop = () => { ended = true; socket.close() }
  dashboard.onLeave(stop)
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as ProgressMessage | FinalMessage
    if (ended) return
    if (message.type === 'progress') onProgress(message)
    else if (message.job) end(message.job)
  })
  socket.addEventListener('close', () => { if (!ended) void poll() })
  return stop
}

export const playgroundView: View = async (dashboard, main, { query }) => {
  const [tools, me] = await Promise.all([dashboard.tools(), dashboard.refreshMe()])
  const rerun = query.get('rerun')
  const stored = rerun ? await call<JobInput>('GET', `/api/jobs/${encodeURIComponent(rerun)}/input`) : null
  const chosen = stored?.tool ?? query.get('tool') ?? tools[0]?.key ?? ''

  const toolSelect = h('select', { name: 'tool' }, tools.map(t => h('option', { value: t.key, selected: t.key === chosen }, `${t.title} (${t.key})`)))
  const about = h('p', { class: 'help' })
  const formBox = h('div')
  const fileBox = h('div')
  const formError = h('div')
  const runBox = h('div')
  const resultsBox = h('div')
  let form: GeneratedForm | null = null
  let fileInput: HTMLInputElement | null = null
  let uploadParam: string | null = null
  let stopFollowing: (() => void) | null = null

  const showTool = (tool: ToolInfo | undefined) => {
    if (!tool) return
    about.textContent = tool.description
    uploadParam = tool.upload?.param ?? null
    form = generateForm(tool.params as JsonSchema, { maxRecords: me.limits.max_records_per_run, tier: me.tier, perRunFields: tool.per_run_fields, uploadParam: uploadParam ?? undefined })
    formBox.replaceChildren(form.element)
    fileInput = null
    fileBox.replaceChildren()
    if (tool.upload) {
      const param = labelOf(tool.upload.param, (tool.params as JsonSchema).properties?.[tool.upload.param] ?? {})
      fileInput = h('input', { type: 'file', name: 'file', accept: tool.upload.content_types.join(',') })
      fileBox.replaceChildren(field('Upload a file (instead of a link)', fileInput, `${tool.upload.content_types.join(', ')}; up to ${me.limits.max_file_mb} MB on the ${me.tier} plan. The file stands in for ${param}: leave that field empty.`))
    }
  }
  // Another tool: its own form, and nothing left of the last job (its panel, its rows, its socket).
  const clearRun = () => { stopFollowing?.(); stopFollowing = null; runBox.replaceChildren(); resultsBox.replaceChildren(); formError.replaceChildren() }
  toolSelect.addEventListener('change', () => { clearRun(); showTool(tools.find(t => t.key === toolSelect.value)); history.replaceState(null, '', `#playground?tool=${encodeURIComponent(toolSelect.value)}`) })
  showTool(tools.find(t => t.key === chosen))
  if (stored && form) {
    (form as GeneratedForm).load(stored.params)
    if (stored.upload) formError.replaceChildren(h('p', { class: 'note' }, 'That job ran on an uploaded file: choose the file again.'))
  }

  const start = async (tool: string, params: Record<string, unknown>): Promise<Started> => {
    const file = fileInput?.files?.[0]
    if (!file) return call<Started>('POST', '/api/tool-run', { tool, params })
    const body = new FormData()
    body.set('tool', tool)
    body.set('params', JSON.stringify(params))
    body.set('file', file, file.name)
    return call<Started>('POST', '/api/tool-run', body)
  }

  const run = async (event: Event) => {
    event.preventDefault()
    formError.replaceChildren()
    if (!form) return
    const read = form.read(new Set(fileInput?.files?.length && uploadParam ? [uploadParam] : []))
    if ('problems' in read) { formError.replaceChildren(errorBox(read.summary)); read.first?.focus(); return }
    const button = formEl.querySelector<HTMLButtonElement>('button[type=submit]')!
    button.disabled = true
    let started: Started
    try {
      started = await start(toolSelect.value, read.params)
    } catch (err) {
      formError.replaceChildren(errorBox((err as Error).message))
      button.disabled = false
      return
    }
    clearRun()
    const bar = h('progress', { id: 'run-progress', max: 100, value: 0, 'aria-labelledby': 'run-progress-label' })
    const stage = h('p', { id: 'run-stage', 'aria-live': 'polite' }, 'queued')
    const records = h('span', { id: 'run-records' }, '0 rows')
    const outcome = h('div', { id: 'run-outcome' })
    const cancel = h('button', {
      type: 'button',
      class: 'danger',
      onclick: async () => {
        cancel.disabled = true
        try { await cancelJob(started.job_id) } catch (err) { outcome.replaceChildren(errorBox((err as Error).message)) }
        cancel.disabled = false
      },
    }, 'Cancel…')
    runBox.replaceChildren(h('section', { class: 'card', 'aria-labelledby': 'run-title' },
      h('h2', { id: 'run-title' }, `Job ${started.job_id}`),
      h('div', { class: 'progress-row' }, h('label', { id: 'run-progress-label', for: 'run-progress' }, 'Progress'), bar, records),
      stage, h('div', { class: 'row' }, cancel), outcome))
    announce(`Job ${started.job_id} started.`)
    let shown = 0
    stopFollowing = follow(dashboard, started.job_id, (message) => {
      const fraction = stageFraction(message.stage)
      // Never backwards: a list of inputs restarts its count for each one.
      if (fraction !== null) shown = Math.max(shown, Math.round(fraction * 95))
      bar.value = shown
      stage.textContent = message.stage
      records.textContent = `${message.records} row${message.records === 1 ? '' : 's'}`
    }, (job) => {
      stopFollowing = null
      button.disabled = false
      cancel.remove()
      // Only a finished job fills the bar: a cancelled or failed one stays where it stopped.
      if (job.status === 'done') bar.value = 100
      stage.textContent = job.status === 'done' || job.status === 'cancelled' ? job.status : `ended: ${job.error ?? job.status}`
      records.textContent = `${job.records} row${job.records === 1 ? '' : 's'}`
      const { text, tone } = outcomeOf(job)
      fill(outcome,
        tone === 'ok' ? h('p', { class: 'ok', 'data-run-done': '' }, text) : tone === 'cancelled' ? h('p', { class: 'cancelled', role: 'status', 'data-run-cancelled': '' }, text) : errorBox(text),
        job.warning ? h('p', { class: 'note' }, job.warning) : null,
        h('p', {}, h('a', { href: `#results/${encodeURIComponent(job.job_id)}` }, 'Open the results page')))
      announce(tone === 'ok' ? `Job done: ${job.records} rows.` : tone === 'cancelled' ? 'Job cancelled.' : 'Job ended with an error.')
      if (job.records > 0 || job.status === 'done') void renderResults(resultsBox, job.job_id, job.tool)
    })
  }

  // The same call on a schedule: a monitor (#monitors) that reports what changed between runs.
  const every = h('input', { type: 'text', value: '1d', size: 6, 'aria-describedby': 'monitor-help' })
  const monitorThis = async () => {
    formError.replaceChildren()
    if (!form) return
    const read = form.read()
    if ('problems' in read) { formError.replaceChildren(errorBox(read.summary)); read.first?.focus(); return }
    try {
      const created = await call<Monitor>('POST', '/api/monitors', { tool: toolSelect.value, params: read.params, schedule: { every: every.value.trim() } })
      dashboard.go(`#monitors/${encodeURIComponent(created.monitor_id)}`)
    } catch (err) {
      formError.replaceChildren(errorBox((err as Error).message))
    }
  }
  // The same call for a terminal or an agent, copied (the key stays a variable the reader sets).
  const copyStatus = h('span', { role: 'status', class: 'help' })
  let manifest: ManifestTool[] | null = null
  const copyCall = async (as: 'curl' | 'mcp') => {
    formError.replaceChildren()
    copyStatus.textContent = ''
    if (!form) return
    const read = form.read(new Set(fileInput?.files?.length && uploadParam ? [uploadParam] : []))
    if ('problems' in read) { formError.replaceChildren(errorBox(read.summary)); read.first?.focus(); return }
    const upload = fileInput?.files?.[0]?.name
    let text: string | null
    if (as === 'curl') {
      text = curlCommand(location.origin, toolSelect.value, read.params, upload)
    } else {
      manifest ??= (await call<{ tools: ManifestTool[] }>('GET', '/mcp/manifest.json')).tools
      text = upload ? null : mcpCall(manifest, toolSelect.value, read.params)
      if (text === null) { copyStatus.textContent = upload ? 'An agent cannot send a file: copy as curl instead.' : 'No agent tool runs this call.'; return }
    }
    copyStatus.textContent = (await copyText(text)) ? (as === 'curl' ? 'Copied: set EXTRACTION_API_KEY, then paste it in a terminal.' : 'Copied: the tools/call message for POST /mcp.') : 'Copy refused by the browser.'
  }
  // novalidate: the browser's own bubbles would stop the submit before the checks that write words under each field.
  const formEl = h('form', { 'aria-labelledby': 'tool-title', novalidate: true, onsubmit: run },
    field('Tool', toolSelect), about, formBox, fileBox, formError,
    h('div', { class: 'row' },
      h('button', { type: 'submit', class: 'primary' }, 'Run'),
      h('button', { type: 'button', onclick: () => { void copyCall('curl') } }, 'Copy as curl'),
      h('button', { type: 'button', onclick: () => { void copyCall('mcp') } }, 'Copy as an MCP call'),
      copyStatus),
    h('div', { class: 'row' },
      field('Every', every, h('span', { id: 'monitor-help' }, '30m, 6h, 1d: your plan\'s shortest interval applies')),
      h('button', { type: 'button', onclick: () => { void monitorThis() } }, 'Monitor this')))
  fill(main,
    h('h1', { tabindex: -1 }, 'Playground'),
    h('section', { class: 'card' }, h('h2', { id: 'tool-title' }, 'Run a tool'), formEl),
    runBox, resultsBox)
}

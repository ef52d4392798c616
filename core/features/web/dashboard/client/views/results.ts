// A finished job's rows: a table with paging and column choice, downloads in
// every export format (fetched with the key, saved as blobs), as stored or one
// row per item of a list column (explode), and the job's files as thumbnails
// (images) or download buttons.
import { call, download, imageDataUrl, type ArtifactList, type JobResults, type JobStatus } from '../api.ts'
import { cellText, errorBox, h, tableWrap, uid, fill } from '../dom.ts'
import type { View } from '../context.ts'
import { outcomeOf } from '../job-outcome.ts'

const PAGE_SIZES = [5, 10, 25, 100]
const FORMATS = ['csv', 'xlsx', 'json', 'jsonl'] as const
/** Artifact paths in rows look like this (README, Files). */
const ARTIFACT_PATH = /^\/api\/tool-run\/[^/]+\/artifacts\/[^/]+$/
/** Thumbnails are read whole: larger images are offered as downloads only. */
const THUMBNAIL_MAX_BYTES = 3 * 1024 * 1024
const THUMBNAILS_MAX = 24

function fileButton (url: string, name: string, label = name): HTMLButtonElement {
  return h('button', { type: 'button', class: 'link', onclick: () => { download(url, name).catch((err: Error) => alertIn(document.body, err.message)) } }, label)
}

function alertIn (parent: HTMLElement, text: string) {
  const box = errorBox(text)
  parent.prepend(box)
  setTimeout(() => box.remove(), 8000)
}

async function filesSection (jobId: string): Promise<HTMLElement | null> {
  let list: ArtifactList
  try {
    list = await call<ArtifactList>('GET', `/api/tool-run/${encodeURIComponent(jobId)}/artifacts`)
  } catch {
    return null
  }
  if (!list.count) return null
  const images = list.files.filter(f => f.content_type.startsWith('image/') && f.size <= THUMBNAIL_MAX_BYTES).slice(0, THUMBNAILS_MAX)
  const gallery = h('ul', { class: 'thumbs' })
  for (const file of images) {
    const img = h('img', { alt: file.name, width: 160, height: 90, loading: 'lazy' })
    gallery.append(h('li', {}, h('button', { type: 'button', class: 'thumb', 'aria-label': `Download ${file.name}`, onclick: () => { void download(file.url, file.name) } }, img), h('span', {}, file.name)))
    imageDataUrl(file.url).then(src => { img.src = src }, () => { img.alt = `${file.name} (could not be loaded)` })
  }
  const others = list.files.filter(f => !images.includes(f))
  return h('section', { class: 'card', 'aria-labelledby': 'files-title' },
    h('h2', { id: 'files-title' }, `Files (${list.count})`),
    images.length ? gallery : null,
    others.length ? h('ul', { class: 'files' }, others.map(f => h('li', {}, fileButton(f.url, f.name), ` ${f.content_type}, ${(f.size / 1024).toFixed(1)} KB`))) : null,
    h('p', {}, fileButton(list.zip_url, `${jobId}-files.zip`, 'Download all as a zip')))
}

interface FileValue { url: string, name?: string, content_type?: string, size?: number }

/** A job file as a row holds it: `{url: '/api/tool-run/…/artifacts/…', name, content_type, size}`. */
const isFile = (value: unknown): value is FileValue =>
  typeof value === 'object' && value !== null && typeof (value as FileValue).url === 'string' && ARTIFACT_PATH.test((value as FileValue).url)

/** A job file in a cell: a thumbnail for a small image, else a download link; fetched with the key either way. */
function fileCell (file: FileValue): HTMLElement {
  const name = file.name ?? file.url.split('/').pop()!
  const small = file.size === undefined || file.size <= THUMBNAIL_MAX_BYTES
  if (!file.content_type?.startsWith('image/') || !small) return fileButton(file.url, name)
  const img = h('img', { alt: name, width: 96, height: 54, loading: 'lazy' })
  imageDataUrl(file.url).then(src => { img.src = src }, () => { img.alt = `${name} (could not be loaded)` })
  return h('span', { class: 'file-cell' }, h('button', { type: 'button', class: 'thumb', 'aria-label': `Download ${name}`, onclick: () => { void download(file.url, name) } }, img), fileButton(file.url, name))
}

const isWebLink = (text: string) => /^https?:\/\/[^\s]+$/i.test(text)

/**
 * A value of a row for reading: a list as a list, a job file as a thumbnail or
 * a download, a web address as a link, an object as its fields, long text cut
 * (whole in the title). Always text nodes and attributes (dom.ts).
 */
function cellContent (value: unknown, depth = 0): Node | string {
  if (isFile(value)) return fileCell(value)
  if (typeof value === 'string') {
    if (ARTIFACT_PATH.test(value)) return fileButton(value, value.split('/').pop()!, 'file')
    if (isWebLink(value) && value.length <= 2000) return h('a', { href: value, rel: 'noreferrer noopener', target: '_blank' }, cellText(value, 120))
  }
  if (depth < 2 && Array.isArray(value)) {
    if (!value.length) return ''
    const items = value.slice(0, 50)
    return h('ul', { class: 'cell-list' }, items.map(item => h('li', {}, cellContent(item, depth + 1))), value.length > items.length ? h('li', {}, `… ${value.length - items.length} more`) : null)
  }
  if (depth < 2 && typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== null && v !== undefined && v !== '')
    return h('span', { class: 'cell-object' }, entries.flatMap(([key, v], i) => [i ? ' · ' : '', h('span', { class: 'muted' }, `${key}: `), cellContent(v, depth + 1)]))
  }
  const text = cellText(value)
  return text.length >= 300 ? h('span', { title: cellText(value, 2000) }, text) : text
}

/** The rows of a job into `box`, paged; columns are those seen so far, each may be hidden. */
export async function renderResults (box: HTMLElement, jobId: string, tool: string): Promise<void> {
  let offset = 0
  let limit = 25
  const hidden = new Set<string>()
  const known: string[] = []
  const tableBox = h('div')
  const pager = h('div', { class: 'row pager' })
  const columnsBox = h('div', { class: 'checks' })
  const sizeSelect = h('select', { id: uid('size') }, PAGE_SIZES.map(n => h('option', { value: n, selected: n === limit }, String(n))))
  const problem = h('div')
  // The export's explode=<column>: one row per item of a list column, offered for the list columns seen so far.
  const listColumns: string[] = []
  const explodeSelect = h('select', { id: uid('explode'), name: 'explode' })
  const explodeField = h('div', { class: 'row', hidden: true }, h('label', { for: explodeSelect.id }, 'Rows in the download'), explodeSelect)
  const showListColumns = () => {
    const chosen = explodeSelect.value
    explodeSelect.replaceChildren(
      h('option', { value: '' }, 'One per result'),
      ...listColumns.map(key => h('option', { value: key, selected: key === chosen }, `One per item of ${key} (the other fields repeated)`)))
    explodeField.hidden = listColumns.length === 0
  }

  const render = async () => {
    let page: JobResults
    try {
      page = await call<JobResults>('GET', `/api/jobs/${encodeURIComponent(jobId)}/results?offset=${offset}&limit=${limit}`)
    } catch (err) {
      problem.replaceChildren(errorBox((err as Error).message))
      return
    }
    problem.replaceChildren()
    for (const row of page.results) for (const key of Object.keys(row)) if (!known.includes(key)) known.push(key)
    const lists = known.filter(key => listColumns.includes(key) || page.results.some(row => Array.isArray(row[key])))
    if (lists.length !== listColumns.length) { listColumns.splice(0, listColumns.length, ...lists); showListColumns() }
    columnsBox.replaceChildren(...known.map(key => {
      const boxId = uid('col')
      const check = h('input', { type: 'checkbox', id: boxId, checked: !hidden.has(key), onchange: () => { if (check.checked) hidden.delete(key); else hidden.add(key); void render() } })
      return h('label', { for: boxId, class: 'check' }, check, ` ${key}`)
    }))
    const shown = known.filter(k => !hidden.has(k))
    const cell = (value: unknown) => h('td', {}, cellContent(value))
    const table = h('table', { 'data-results': '' },
      h('caption', {}, `Rows ${page.total ? offset + 1 : 0}–${offset + page.count} of ${page.total}`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, '#'), shown.map(k => h('th', { scope: 'col' }, k)))),
      h('tbody', {}, page.results.map((row, i) => h('tr', {}, h('th', { scope: 'row' }, String(offset + i + 1)), shown.map(k => cell(row[k]))))))
    tableBox.replaceChildren(page.total ? tableWrap('Result rows', table) : h('p', {}, 'No rows.'))
    const last = offset + page.count >= page.total
    pager.replaceChildren(
      h('button', { type: 'button', disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - limit); void render() } }, 'Previous page'),
      h('span', { 'aria-live': 'polite', 'data-page-status': '' }, `Page ${Math.floor(offset / limit) + 1} of ${Math.max(1, Math.ceil(page.total / limit))}`),
      h('button', { type: 'button', disabled: last, onclick: () => { offset += limit; void render() } }, 'Next page'))
  }
  sizeSelect.addEventListener('change', () => { limit = Number(sizeSelect.value); offset = 0; void render() })

  const downloads = h('div', { class: 'row' }, h('span', {}, 'Download:'), FORMATS.map(format => h('button', {
    type: 'button',
    'data-format': format,
    onclick: () => {
      const query = new URLSearchParams()
      if (hidden.size) query.set('fields', known.filter(k => !hidden.has(k)).join(','))
      const explode = explodeSelect.value
      if (explode) query.set('explode', explode)
      const search = query.toString() ? `?${query.toString()}` : ''
      const name = `${tool}-${jobId}${explode ? `-by-${explode}` : ''}.${format}`
      download(`/api/jobs/${encodeURIComponent(jobId)}/results.${format}${search}`, name).catch((err: Error) => problem.replaceChildren(errorBox(err.message)))
    },
  }, format.toUpperCase())))

  box.replaceChildren(
    h('section', { class: 'card', 'aria-labelledby': 'rows-title' },
      h('h2', { id: 'rows-title' }, 'Results'),
      problem,
      h('div', { class: 'row' }, h('label', { for: sizeSelect.id }, 'Rows a page'), sizeSelect),
      h('details', {}, h('summary', {}, 'Columns'), columnsBox),
      tableBox, pager, explodeField, downloads))
  await render()
  const files = await filesSection(jobId)
  if (files) box.append(files)
}

export const resultsView: View = async (_dashboard, main, { path }) => {
  const jobId = path[1] ?? ''
  const status = await call<JobStatus>('GET', `/api/jobs/${encodeURIComponent(jobId)}`)
  const box = h('div')
  const { text, tone } = outcomeOf(status)
  fill(main,
    h('h1', { tabindex: -1 }, `Results of ${status.tool}`),
    h('p', {}, `Job ${status.job_id}: ${status.status}${status.records ? `, ${status.records} rows` : ''}. `, h('a', { href: `#playground?rerun=${encodeURIComponent(jobId)}` }, 'Run again')),
    status.status === 'running' ? null : tone === 'cancelled' ? h('p', { class: 'cancelled' }, text) : tone === 'error' ? errorBox(text) : null,
    status.warning ? h('p', { class: 'note' }, status.warning) : null,
    box)
  if (status.status === 'running') box.append(h('p', {}, 'Still running: the rows can be read when it ends.'))
  else await renderResults(box, jobId, status.tool)
}

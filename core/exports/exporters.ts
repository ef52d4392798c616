// Streamed exports of a job's rows: CSV (RFC 4180, UTF-8 with BOM), XLSX (one
// sheet `results`), JSON (an array) and JSONL. Rows are read in batches and
// written as they come, so memory stays flat whatever the job's size. CSV and
// XLSX cells that a spreadsheet would run as a formula are neutralised
// (`spreadsheetText`); JSON and JSONL carry the values unchanged. Every format
// honours backpressure: a row page is read only when the client has taken the
// bytes before it.
import { PassThrough, Readable, type Writable } from 'node:stream'

export type ExportFormat = 'csv' | 'xlsx' | 'json' | 'jsonl'
export const EXPORT_FORMATS: ExportFormat[] = ['csv', 'xlsx', 'json', 'jsonl']

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  json: 'application/json; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
}

/** Nested values as JSON text; null and undefined as empty. */
export function cellText (value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

// A spreadsheet reads a cell starting with one of these as a formula (or, for tab and
// CR, strips them and reads what follows): scraped titles, business names and ad texts
// are attacker-written, so `=HYPERLINK(...)` or `@SUM(...)` must stay text.
const FORMULA_START = /^[=+\-@\t\r]/

/**
 * The text of a spreadsheet cell (CSV or XLSX), neutralised as OWASP recommends
 * for CSV injection: a leading `'` makes the application show the text as typed.
 * Only text is prefixed; numbers and booleans are written as values (an XLSX
 * number -5 is not a formula, and a CSV number keeps its sign).
 */
export function spreadsheetText (value: unknown): string {
  const text = cellText(value)
  return typeof value === 'string' && FORMULA_START.test(text) ? `'${text}` : text
}

function csvField (value: unknown): string {
  const text = spreadsheetText(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

const pick = (row: Record<string, unknown>, columns: string[]) => Object.fromEntries(columns.filter(c => c in row).map(c => [c, row[c]]))

async function * csvLines (rows: AsyncIterable<Record<string, unknown>>, columns: string[]): AsyncGenerator<string> {
  yield '\uFEFF' + columns.map(csvField).join(',') + '\r\n'
  let buffer = ''
  for await (const row of rows) {
    buffer += columns.map(c => csvField(row[c])).join(',') + '\r\n'
    if (buffer.length > 64 * 1024) { yield buffer; buffer = '' }
  }
  if (buffer) yield buffer
}

async function * jsonChunks (rows: AsyncIterable<Record<string, unknown>>, columns: string[] | null, lines: boolean): AsyncGenerator<string> {
  let first = true
  let buffer = lines ? '' : '['
  for await (const row of rows) {
    const value = JSON.stringify(columns ? pick(row, columns) : row)
    buffer += lines ? value + '\n' : (first ? '' : ',') + value
    first = false
    if (buffer.length > 64 * 1024) { yield buffer; buffer = '' }
  }
  buffer += lines ? '' : ']'
  if (buffer) yield buffer
}

// Excel refuses cells longer than this.
const XLSX_CELL_MAX = 32_767

/** Resolves when `stream` can take more, or when it or `alsoClosing` has closed (then nothing will drain it). */
function drainedOrClosed (stream: Writable, alsoClosing: Writable = stream): Promise<void> {
  return new Promise(resolve => {
    const done = () => {
      stream.off('drain', done)
      stream.off('close', done)
      alsoClosing.off('close', done)
      resolve()
    }
    stream.on('drain', done)
    stream.on('close', done)
    if (alsoClosing !== stream) alsoClosing.on('close', done)
  })
}

/**
 * The zip entry a streamed worksheet's XML is written into, and whether it
 * is backed up: exceljs's sheet buffer (`StreamBuf`) writes its bytes on
 * into the stream archiver piped it to, without waiting. That is a
 * readable-stream PassThrough (archiver's userland copy of Node streams, no
 * `writableNeedDrain`), so its writable state says it. exceljs exposes
 * neither; when its internals differ this is undefined and only the client's
 * backpressure is honoured (the export benchmark would show the growth).
 */
function sheetEntry (sheet: object): { stream: Writable, backedUp: () => boolean } | undefined {
  const pipes = ((sheet as { stream?: unknown }).stream as { pipes?: unknown } | undefined)?.pipes
  const entry = Array.isArray(pipes) ? pipes[0] as (Writable & { _writableState?: { needDrain?: unknown } }) | undefined : undefined
  if (!entry || typeof entry.on !== 'function') return undefined
  if (typeof entry.writableNeedDrain === 'boolean') return { stream: entry, backedUp: () => entry.writableNeedDrain }
  if (typeof entry._writableState?.needDrain === 'boolean') return { stream: entry, backedUp: () => entry._writableState!.needDrain === true }
  return undefined
}

function xlsxStream (rows: AsyncIterable<Record<string, unknown>>, columns: string[]): Readable {
  const out = new PassThrough()
  ;(async () => {
    // exceljs is loaded on the first XLSX export only.
    const { default: ExcelJS } = await import('exceljs')
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false })
    const sheet = workbook.addWorksheet('results')
    sheet.addRow(columns.map(spreadsheetText)).commit()
    let entry: ReturnType<typeof sheetEntry>
    for await (const row of rows) {
      sheet.addRow(columns.map(c => {
        const v = row[c]
        if (typeof v === 'number' || typeof v === 'boolean') return v
        const text = spreadsheetText(v)
        return text.length > XLSX_CELL_MAX ? text.slice(0, XLSX_CELL_MAX) : text
      })).commit()
      // exceljs takes rows whatever its zip does: a committed row's XML is
      // written on into the zip entry without waiting, so a reading loop that
      // never yields would hold the whole sheet (+350 MB for 100,000 rows of
      // long text, scripts/bench/README.md). The backpressure is ours: no more
      // rows are read while the sheet's zip entry, or the client, has not
      // taken what is queued for it.
      entry ??= sheetEntry(sheet)
      if (entry?.backedUp()) await drainedOrClosed(entry.stream, out)
      if (out.writableNeedDrain) await drainedOrClosed(out)
      // The client went away (fastify destroys the stream): stop reading rows.
      if (out.destroyed) return
    }
    sheet.commit()
    await workbook.commit()
  })().catch(err => out.destroy(err))
  return out
}

/**
 * `explode=<field>`: a row whose field is a list becomes one row per item, the
 * item in the field and the row's other fields repeated; an empty list or a
 * missing field keeps the row once with the field null, so no row is lost.
 */
export async function * explodeRows (rows: AsyncIterable<Record<string, unknown>>, field: string): AsyncGenerator<Record<string, unknown>> {
  for await (const row of rows) {
    const value = row[field]
    if (!Array.isArray(value)) { yield row; continue }
    if (value.length === 0) { yield { ...row, [field]: null }; continue }
    for (const item of value) yield { ...row, [field]: item }
  }
}

/**
 * A readable stream of the export. `columns` is the header: the job's union of
 * row keys in first-seen order, or the `fields=` selection.
 */
export function exportStream (format: ExportFormat, rows: AsyncIterable<Record<string, unknown>>, columns: string[], selected: boolean): Readable {
  switch (format) {
    case 'csv': return Readable.from(csvLines(rows, columns))
    case 'xlsx': return xlsxStream(rows, columns)
    case 'json': return Readable.from(jsonChunks(rows, selected ? columns : null, false))
    case 'jsonl': return Readable.from(jsonChunks(rows, selected ? columns : null, true))
  }
}

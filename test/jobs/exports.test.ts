import t from 'tap'
import { parse } from 'csv-parse/sync'
import ExcelJS from 'exceljs'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, waitForEnd } from '../helpers/jobs.ts'
import { cellText, explodeRows } from '../../core/exports/exporters.ts'
import { iterateRows, readRowPage } from '../../core/jobs/result-rows.ts'
import type { HotReads } from '../../core/db/hot-reads.ts'

t.test('CSV, XLSX, JSON and JSONL exports parse back to the JSON results', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 9, batch: 4 })).json()
  await waitForEnd(app, user.apiKey, id)
  const headers = { 'x-api-key': user.apiKey }
  const rows = (await app.inject({ url: `/api/tool-run/${id}/results?limit=1000`, headers })).json().results as Array<Record<string, unknown>>
  t.equal(rows.length, 9)
  // Header: the union of row keys in first-seen order (nested appears on row 2, extra on row 4).
  const columns = ['n', 'label', 'text', 'nested', 'extra']
  const asText = (r: Record<string, unknown>) => Object.fromEntries(columns.map(c => [c, cellText(r[c])]))

  const csv = await app.inject({ url: `/api/tool-run/${id}/results.csv`, headers })
  t.equal(csv.statusCode, 200)
  t.match(csv.headers['content-type'], /text\/csv/)
  t.equal(csv.headers['content-disposition'], `attachment; filename="counter-${id}.csv"`)
  t.ok(csv.rawPayload.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])), 'UTF-8 BOM')
  const parsed = parse(csv.rawPayload, { bom: true, columns: true }) as Array<Record<string, string>>
  t.same(Object.keys(parsed[0]!), columns)
  t.same(parsed, rows.map(asText))
  t.match(csv.body, /\r\n/, 'CRLF line ends')

  const xlsx = await app.inject({ url: `/api/tool-run/${id}/results.xlsx`, headers })
  t.equal(xlsx.statusCode, 200)
  t.equal(xlsx.headers['content-disposition'], `attachment; filename="counter-${id}.xlsx"`)
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer)
  const sheet = workbook.getWorksheet('results')!
  t.ok(sheet, 'sheet named results')
  const values = sheet.getSheetValues().slice(1).map(r => (r as unknown[]).slice(1))
  t.same(values[0], columns)
  const body = values.slice(1).map(r => Object.fromEntries(columns.map((c, i) => [c, r[i] === undefined || r[i] === null ? '' : String(r[i])])))
  t.same(body, rows.map(asText))

  const json = await app.inject({ url: `/api/tool-run/${id}/results.json`, headers })
  t.same(json.json(), rows)
  const jsonl = await app.inject({ url: `/api/tool-run/${id}/results.jsonl`, headers })
  t.same(jsonl.body.trim().split('\n').map(l => JSON.parse(l)), rows)

  const dl = await app.inject({ url: `/api/download/${id}/csv`, headers })
  t.equal(dl.body, csv.body, '/api/download serves the same file')
  const bad = await app.inject({ url: `/api/download/${id}/pdf`, headers })
  t.equal(bad.statusCode, 400)
})

t.test('fields= selects columns on every format', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 3 })).json()
  await waitForEnd(app, user.apiKey, id)
  const headers = { 'x-api-key': user.apiKey }
  const csv = parse((await app.inject({ url: `/api/tool-run/${id}/results.csv?fields=text,n`, headers })).rawPayload, { bom: true, columns: true })
  t.same(Object.keys(csv[0]), ['text', 'n'])
  const json = (await app.inject({ url: `/api/tool-run/${id}/results.json?fields=n`, headers })).json()
  t.same(json, [{ n: 1 }, { n: 2 }, { n: 3 }])
  const jsonl = (await app.inject({ url: `/api/tool-run/${id}/results.jsonl?fields=n`, headers })).body
  t.equal(jsonl, '{"n":1}\n{"n":2}\n{"n":3}\n')
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load((await app.inject({ url: `/api/tool-run/${id}/results.xlsx?fields=n`, headers })).rawPayload as unknown as ArrayBuffer)
  t.same(workbook.getWorksheet('results')!.getRow(1).values, [undefined, 'n'])
  t.equal((await app.inject({ url: `/api/tool-run/${id}/results.csv?fields=,`, headers })).statusCode, 400)
})

t.test('explode= gives one row per item of a list column, the other fields repeated; no row lost', async t => {
  async function * rows () {
    yield { site: 'a.example', emails: ['x@a.example', 'y@a.example'], pages: 3 }
    yield { site: 'b.example', emails: [], pages: 1 }
    yield { site: 'c.example', pages: 2 }
  }
  const out = []
  for await (const row of explodeRows(rows(), 'emails')) out.push(row)
  t.same(out, [
    { site: 'a.example', emails: 'x@a.example', pages: 3 },
    { site: 'a.example', emails: 'y@a.example', pages: 3 },
    { site: 'b.example', emails: null, pages: 1 },
    { site: 'c.example', pages: 2 },
  ])

  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 3 })).json()
  await waitForEnd(app, user.apiKey, id)
  const headers = { 'x-api-key': user.apiKey }
  const plain = (await app.inject({ url: `/api/tool-run/${id}/results.json`, headers })).json()
  t.same((await app.inject({ url: `/api/tool-run/${id}/results.json?explode=n`, headers })).json(), plain, 'a column that is no list: the rows as they are')
  const unknown = await app.inject({ url: `/api/tool-run/${id}/results.csv?explode=emails`, headers })
  t.equal(unknown.statusCode, 400)
  t.match(unknown.json().detail, /explode names no column of this job's rows: 'emails'; its columns are n, label/)
})

t.test('results pages and exports read the rows one way: the same statement on the hot reader', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 7, batch: 3 })).json()
  await waitForEnd(app, user.apiKey, id)
  const headers = { 'x-api-key': user.apiKey }
  const hot = app.services.database.hot
  const select = hot.select.bind(hot)
  const statements: string[] = []
  hot.select = (sql, params) => { if (sql.includes('result_rows')) statements.push(sql); return select(sql, params) }
  t.teardown(() => { hot.select = select })
  const page = (await app.inject({ url: `/api/tool-run/${id}/results?offset=2&limit=3`, headers })).json()
  t.match(page, { count: 3, total: 7, offset: 2, limit: 3 })
  const lines = (await app.inject({ url: `/api/tool-run/${id}/results.jsonl`, headers })).body.trim().split('\n').map(l => JSON.parse(l))
  t.equal(lines.length, 7)
  t.same(page.results, lines.slice(2, 5), 'a results page is a slice of the export')
  t.ok(statements.length >= 2, 'both reads went through the hot reader')
  t.equal(new Set(statements).size, 1, 'one statement for both')
})

/** A hot reader over an in-memory table that records each page it is asked for. */
function pagedReads (count: number): { reads: HotReads, asked: Array<[number, number]> } {
  const asked: Array<[number, number]> = []
  const reads = {
    select: async (_sql: string, [, from, limit]: Array<string | number>) => {
      asked.push([Number(from), Number(limit)])
      const rows = []
      for (let seq = Number(from); seq < Math.min(count, Number(from) + Number(limit)); seq++) rows.push({ seq: BigInt(seq), data: JSON.stringify({ n: seq }) })
      return rows
    },
  } as unknown as HotReads
  return { reads, asked }
}

t.test('iterateRows reads a page only when its first row is asked for, and stops after a short page', async t => {
  const { reads, asked } = pagedReads(5)
  const rows = iterateRows(reads, 'job', 2)
  t.same((await rows.next()).value, { n: 0 })
  t.same(asked, [[0, 2]], 'one page read for the first row')
  await rows.next()
  t.same(asked, [[0, 2]], 'the second row comes from the same page')
  const rest = []
  for await (const row of rows) rest.push(row)
  t.same(rest, [{ n: 2 }, { n: 3 }, { n: 4 }])
  t.same(asked, [[0, 2], [2, 2], [4, 2]], 'the short third page ends it')
})

t.test('readRowPage: rows from an offset, and where the next page starts', async t => {
  const { reads } = pagedReads(5)
  t.same(await readRowPage(reads, 'job', 3, 10), { rows: [{ n: 3 }, { n: 4 }], nextSeq: 5 })
  t.same(await readRowPage(reads, 'job', 9, 10), { rows: [], nextSeq: 9 })
})

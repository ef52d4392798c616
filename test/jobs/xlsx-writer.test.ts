import t from 'tap'
import { PassThrough } from 'node:stream'
import { inflateRawSync } from 'node:zlib'
import { randomBytes } from 'node:crypto'
import ExcelJS from 'exceljs'
import { columnName, writeXlsx, XLSX_CELL_MAX, type SheetCell } from '../../core/exports/xlsx-writer.ts'

async function * rowsOf (rows: SheetCell[][]) { yield * rows }

async function xlsxOf (rows: SheetCell[][]): Promise<Buffer> {
  const out = new PassThrough()
  const chunks: Buffer[] = []
  out.on('data', c => chunks.push(c as Buffer))
  const ended = new Promise(resolve => out.on('end', resolve))
  await writeXlsx(out, 'results', rowsOf(rows))
  await ended
  return Buffer.concat(chunks)
}

/** The archive's parts by name, read from its central directory (what a strict unzip does). */
function zipParts (zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  const count = zip.readUInt16LE(end + 10)
  let at = zip.readUInt32LE(end + 16)
  const parts = new Map<string, Buffer>()
  for (let i = 0; i < count; i++) {
    const compressed = zip.readUInt32LE(at + 20)
    const nameLength = zip.readUInt16LE(at + 28)
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString()
    const local = zip.readUInt32LE(at + 42)
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    parts.set(name, inflateRawSync(zip.subarray(dataAt, dataAt + compressed)))
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
  }
  return parts
}

t.test('column letters', async t => {
  t.same([0, 1, 25, 26, 27, 51, 52, 701, 702, 16383].map(columnName), ['A', 'B', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA', 'XFD'])
})

t.test('a workbook exceljs reads back: text, numbers, booleans, empty cells, 30 columns', async t => {
  const header = Array.from({ length: 30 }, (_, i) => `col ${i}`)
  const long = 'x'.repeat(XLSX_CELL_MAX + 10)
  const rows: SheetCell[][] = [
    header,
    ['a <b> & "c"', 1.5, -7, true, false, '', null, undefined, 'line\nbreak', 'cr\rhere', '  spaced  ', 'ünïcödé ✓ 😀', long, 'ctl\u0001\u001Fgone', 'lone \uD800 surrogate', 1e21],
    Array.from({ length: 30 }, (_, i) => i % 2 ? i : `t${i}`),
  ]
  const payload = await xlsxOf(rows)
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load(payload as unknown as ArrayBuffer)
  const sheet = workbook.getWorksheet('results')!
  t.ok(sheet, 'the sheet is named results')
  const values = sheet.getSheetValues().slice(1).map(r => (r as unknown[]).slice(1))
  t.same(values[0], header)
  const r = values[1]!
  t.same(r.slice(0, 5), ['a <b> & "c"', 1.5, -7, true, false])
  t.same(r.slice(5, 8), [undefined, undefined, undefined], "'' null and undefined leave the cell empty")
  t.equal(r[8], 'line\nbreak')
  t.equal(r[9], 'cr\rhere', 'CR kept (written as a character reference)')
  t.equal(r[10], '  spaced  ', 'spaces kept')
  t.equal(r[11], 'ünïcödé ✓ 😀')
  t.equal((r[12] as string).length, XLSX_CELL_MAX, 'cut at the longest cell Excel takes')
  t.equal(r[13], 'ctlgone', 'characters XML cannot carry are dropped')
  t.equal(r[14], 'lone \uFFFD surrogate')
  t.equal(r[15], 1e21)
  t.same(values[2], Array.from({ length: 30 }, (_, i) => i % 2 ? i : `t${i}`))
})

t.test('the package: every part named in the central directory inflates, the same rows give the same bytes', async t => {
  const rows: SheetCell[][] = [['n', 'text'], ...Array.from({ length: 2000 }, (_, i) => [i, `row ${i} `.repeat(20)])]
  const a = await xlsxOf(rows)
  const b = await xlsxOf(rows)
  t.ok(a.equals(b), 'deterministic')
  const parts = zipParts(a)
  t.same([...parts.keys()], ['[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/styles.xml', 'xl/worksheets/sheet1.xml'])
  const sheet = parts.get('xl/worksheets/sheet1.xml')!.toString()
  t.match(sheet, /^<\?xml [^>]+\?>\n<worksheet [^>]+><sheetData><row r="1">/)
  t.match(sheet, /<row r="2001"><c r="A2001"><v>1999<\/v><\/c><c r="B2001" t="inlineStr"><is><t xml:space="preserve">row 1999 /)
  t.match(sheet, /<\/sheetData><\/worksheet>$/)
})

t.test('backpressure: rows are read only as fast as the client takes the file; a client that leaves stops the reading', async t => {
  let read = 0
  let closed = false
  // Text that deflate cannot shrink much, so the bytes reach the client's buffer.
  const noise = () => randomBytes(1500).toString('base64')
  async function * endless (): AsyncGenerator<SheetCell[]> {
    try {
      for (;;) { read++; yield [read, noise()] }
    } finally { closed = true }
  }
  const out = new PassThrough({ highWaterMark: 16 * 1024 })
  const writing = writeXlsx(out, 'results', endless())
  // Nobody reads `out`. Deflate runs on the thread pool, so the writer settles
  // after a while rather than at once: wait until the count holds still
  // (three checks in a row), then it must be small and bounded.
  let still = 0
  for (let last = -1; still < 3; await new Promise(resolve => setTimeout(resolve, 50))) {
    still = read === last ? still + 1 : 0
    last = read
  }
  // Without backpressure the endless source would be read for ever (no count holds still).
  t.ok(read < 2000, `reading stopped while the client took nothing (${read} rows of 2 kB read)`)
  out.destroy()
  await writing
  t.ok(closed, 'the row source is closed when the client goes away')
})

// A streamed XLSX of one sheet, written with node:zlib alone. exceljs (its
// WorkbookWriter over archiver) added ≈ 27 MB to the process when loaded and
// kept its own queues between the sheet and the zip (scripts/bench/README.md,
// export.ts); this writes the sheet's XML straight into one deflate stream
// whose output goes to the client, waiting whenever the client is behind, so
// the memory an export holds is one deflate window and one chunk of rows.
//
// What is written: the smallest package Excel, LibreOffice and exceljs open
// without repair: content types, the package and workbook relationships, a
// workbook naming one sheet, a one-style stylesheet, and the sheet with inline
// strings (no shared-string table to hold) and numeric and boolean cells.
import { createDeflateRaw, crc32 as zlibCrc32, deflateRawSync } from 'node:zlib'
import type { Writable } from 'node:stream'

/** The cell values a sheet row holds; null, undefined and '' leave the cell out. */
export type SheetCell = string | number | boolean | null | undefined

// Excel refuses cells longer than this.
export const XLSX_CELL_MAX = 32_767

// Nodes before 20.15 have no zlib.crc32 (the service supports 20.11): a table-driven one for them.
let crcTable: Uint32Array | undefined
function tableCrc32 (data: Uint8Array, crc = 0): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256)
    for (let n = 0; n < 256; n++) {
      let c = n
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1
      crcTable[n] = c >>> 0
    }
  }
  crc = ~crc >>> 0
  for (let i = 0; i < data.length; i++) crc = crcTable[(crc ^ data[i]!) & 0xFF]! ^ (crc >>> 8)
  return ~crc >>> 0
}
const crc32: (data: Uint8Array, crc?: number) => number = typeof zlibCrc32 === 'function' ? zlibCrc32 : tableCrc32

/** Resolves when `stream` can take more, or when it or `alsoClosing` has closed (then nothing will drain it). */
export function drainedOrClosed (stream: Writable | NodeJS.WritableStream, alsoClosing: Writable = stream as Writable): Promise<void> {
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

const UINT32_MAX = 0xFFFFFFFF
// General purpose flags: bit 3, sizes and CRC follow the data (streamed); bit 11, names are UTF-8.
const FLAGS_STREAMED = 0x0808
const FLAGS_SIZED = 0x0800
const DEFLATE = 8
// 1980-01-01 00:00 in MS-DOS form: fixed, so the same rows give the same bytes.
const DOS_TIME = 0
const DOS_DATE = (0 << 9) | (1 << 5) | 1

interface ZipEntry { name: Buffer, crc: number, compressed: number, size: number, offset: number, flags: number }

/**
 * A zip archive written front to back into `out` (no seeking): small parts
 * deflated at once with their sizes in the local header, one large part
 * streamed with a data descriptor after it. No ZIP64: a part or the archive
 * past 4 GiB fails the export rather than writing a file no one can open.
 */
class ZipWriter {
  private offset = 0
  private readonly entries: ZipEntry[] = []

  constructor (private readonly out: Writable) {}

  private async emit (bytes: Buffer): Promise<void> {
    this.offset += bytes.length
    if (!this.out.write(bytes)) await drainedOrClosed(this.out)
  }

  private localHeader (name: Buffer, flags: number, crc: number, compressed: number, size: number): Buffer {
    const header = Buffer.alloc(30)
    header.writeUInt32LE(0x04034b50, 0)
    header.writeUInt16LE(20, 4) // version needed: 2.0 (deflate)
    header.writeUInt16LE(flags, 6)
    header.writeUInt16LE(DEFLATE, 8)
    header.writeUInt16LE(DOS_TIME, 10)
    header.writeUInt16LE(DOS_DATE, 12)
    header.writeUInt32LE(crc, 14)
    header.writeUInt32LE(compressed, 18)
    header.writeUInt32LE(size, 22)
    header.writeUInt16LE(name.length, 26)
    header.writeUInt16LE(0, 28)
    return Buffer.concat([header, name])
  }

  /** A small part, whole. */
  async file (path: string, text: string): Promise<void> {
    const name = Buffer.from(path)
    const data = Buffer.from(text)
    const deflated = deflateRawSync(data)
    const entry = { name, crc: crc32(data), compressed: deflated.length, size: data.length, offset: this.offset, flags: FLAGS_SIZED }
    this.entries.push(entry)
    await this.emit(this.localHeader(name, entry.flags, entry.crc, entry.compressed, entry.size))
    await this.emit(deflated)
  }

  /**
   * A part written in pieces: `write` resolves when the deflate stream and
   * the client can take more (or the client is gone: the caller checks
   * `out.destroyed`), `end` when the part is whole in `out`.
   */
  async streamed (path: string): Promise<{ write (text: string): Promise<void>, end (): Promise<void> }> {
    const name = Buffer.from(path)
    const entry = { name, crc: 0, compressed: 0, size: 0, offset: this.offset, flags: FLAGS_STREAMED }
    this.entries.push(entry)
    await this.emit(this.localHeader(name, entry.flags, 0, 0, 0))
    const { out } = this
    const deflate = createDeflateRaw()
    let failure: Error | undefined
    deflate.on('error', err => { failure = err })
    // Deflated bytes go on to the client as they come; when the client is
    // behind, deflate stops producing until it drains, and its own input
    // buffer then fills, which `write` below waits on.
    deflate.on('data', (chunk: Buffer) => {
      entry.compressed += chunk.length
      this.offset += chunk.length
      if (!out.write(chunk)) {
        deflate.pause()
        drainedOrClosed(out).then(() => deflate.resume(), () => {})
      }
    })
    // The client gone: nothing more is compressed.
    out.once('close', () => deflate.destroy())
    const ended = new Promise<void>((resolve, reject) => {
      deflate.once('end', resolve)
      deflate.once('error', reject)
      out.once('close', resolve)
    })
    // Awaited in `end`; a deflate failure before then must not be an unhandled rejection.
    ended.catch(() => {})
    return {
      write: async (text: string) => {
        if (failure) throw failure
        const bytes = Buffer.from(text)
        entry.crc = crc32(bytes, entry.crc)
        entry.size += bytes.length
        if (entry.size > UINT32_MAX) throw new Error('the sheet is larger than 4 GiB, more than an XLSX without ZIP64 holds')
        if (!deflate.write(bytes)) await drainedOrClosed(deflate, out)
      },
      end: async () => {
        deflate.end()
        await ended
        if (out.destroyed) return
        if (entry.compressed > UINT32_MAX) throw new Error('the sheet is larger than 4 GiB compressed, more than an XLSX without ZIP64 holds')
        const descriptor = Buffer.alloc(16)
        descriptor.writeUInt32LE(0x08074b50, 0)
        descriptor.writeUInt32LE(entry.crc, 4)
        descriptor.writeUInt32LE(entry.compressed, 8)
        descriptor.writeUInt32LE(entry.size, 12)
        await this.emit(descriptor)
      },
    }
  }

  /** The central directory and its end record; then `out` ends. */
  async finish (): Promise<void> {
    const start = this.offset
    if (start > UINT32_MAX) throw new Error('the archive is larger than 4 GiB, more than an XLSX without ZIP64 holds')
    const records: Buffer[] = []
    for (const e of this.entries) {
      const record = Buffer.alloc(46)
      record.writeUInt32LE(0x02014b50, 0)
      record.writeUInt16LE(20, 4) // made by: 2.0, MS-DOS attributes
      record.writeUInt16LE(20, 6)
      record.writeUInt16LE(e.flags, 8)
      record.writeUInt16LE(DEFLATE, 10)
      record.writeUInt16LE(DOS_TIME, 12)
      record.writeUInt16LE(DOS_DATE, 14)
      record.writeUInt32LE(e.crc, 16)
      record.writeUInt32LE(e.compressed, 20)
      record.writeUInt32LE(e.size, 24)
      record.writeUInt16LE(e.name.length, 28)
      // extra, comment, disk, internal attributes, external attributes: 0
      record.writeUInt32LE(e.offset, 42)
      records.push(record, e.name)
    }
    const directory = Buffer.concat(records)
    const end = Buffer.alloc(22)
    end.writeUInt32LE(0x06054b50, 0)
    end.writeUInt16LE(this.entries.length, 8)
    end.writeUInt16LE(this.entries.length, 10)
    end.writeUInt32LE(directory.length, 12)
    end.writeUInt32LE(start, 16)
    await this.emit(Buffer.concat([directory, end]))
    this.out.end()
  }
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships'
const DOC_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const OOXML = 'application/vnd.openxmlformats-officedocument.spreadsheetml'

const CONTENT_TYPES = XML_HEAD + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  `<Override PartName="/xl/workbook.xml" ContentType="${OOXML}.sheet.main+xml"/>` +
  `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${OOXML}.worksheet+xml"/>` +
  `<Override PartName="/xl/styles.xml" ContentType="${OOXML}.styles+xml"/>` +
  '</Types>'
const PACKAGE_RELS = XML_HEAD + `<Relationships xmlns="${REL_NS}">` +
  `<Relationship Id="rId1" Type="${DOC_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`
const WORKBOOK_RELS = XML_HEAD + `<Relationships xmlns="${REL_NS}">` +
  `<Relationship Id="rId1" Type="${DOC_REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
  `<Relationship Id="rId2" Type="${DOC_REL}/styles" Target="styles.xml"/></Relationships>`
const STYLES = XML_HEAD + `<styleSheet xmlns="${MAIN_NS}">` +
  '<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>'

function workbookXml (sheetName: string): string {
  return XML_HEAD + `<workbook xmlns="${MAIN_NS}" xmlns:r="${DOC_REL}">` +
    `<sheets><sheet name="${xmlText(sheetName)}" sheetId="1" r:id="rId1"/></sheets></workbook>`
}

// Characters XML 1.0 cannot carry at all (C0 controls but tab, LF, CR; U+FFFE, U+FFFF): dropped.
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g
const XML_SPECIAL = /[&<>\r]/g
const XML_ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' }

/** Text as XML character data: escaped, CR kept as a reference (a raw one would be read as LF), lone surrogates replaced. */
function xmlText (text: string): string {
  const wellFormed = (text as string & { toWellFormed?: () => string }).toWellFormed?.() ?? text
  return wellFormed.replace(XML_INVALID, '').replace(XML_SPECIAL, c => XML_ENTITY[c]!)
}

/** A, B, … Z, AA, … : the column letters of 0-based index i. */
export function columnName (i: number): string {
  let name = ''
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + (n - 1) % 26) + name
  return name
}

function rowXml (r: number, cells: SheetCell[], letters: string[]): string {
  let xml = `<row r="${r}">`
  for (let i = 0; i < cells.length; i++) {
    const v = cells[i]
    if (v === null || v === undefined || v === '') continue
    const ref = (letters[i] ??= columnName(i)) + r
    if (typeof v === 'number' && Number.isFinite(v)) xml += `<c r="${ref}"><v>${v}</v></c>`
    else if (typeof v === 'boolean') xml += `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`
    else {
      const text = String(v)
      xml += `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xmlText(text.length > XLSX_CELL_MAX ? text.slice(0, XLSX_CELL_MAX) : text)}</t></is></c>`
    }
  }
  return xml + '</row>'
}

// Sheet XML is handed to deflate in pieces of about this many characters: small,
// so little is alive when the young generation is collected (core/exports/README.md).
const SHEET_CHUNK = 16 * 1024

/**
 * Writes a one-sheet workbook into `out` from `rows` (the header first),
 * reading the next row only when the client has taken what came before; a
 * client that goes away (`out` destroyed) stops the reading. `out` is ended.
 */
export async function writeXlsx (out: Writable, sheetName: string, rows: AsyncIterable<SheetCell[]>): Promise<void> {
  const zip = new ZipWriter(out)
  await zip.file('[Content_Types].xml', CONTENT_TYPES)
  await zip.file('_rels/.rels', PACKAGE_RELS)
  await zip.file('xl/workbook.xml', workbookXml(sheetName))
  await zip.file('xl/_rels/workbook.xml.rels', WORKBOOK_RELS)
  await zip.file('xl/styles.xml', STYLES)
  const sheet = await zip.streamed('xl/worksheets/sheet1.xml')
  const letters: string[] = []
  let buffer = XML_HEAD + `<worksheet xmlns="${MAIN_NS}"><sheetData>`
  let r = 0
  for await (const cells of rows) {
    buffer += rowXml(++r, cells, letters)
    if (buffer.length > SHEET_CHUNK) {
      await sheet.write(buffer)
      buffer = ''
      if (out.destroyed) return
    }
  }
  await sheet.write(buffer + '</sheetData></worksheet>')
  await sheet.end()
  if (out.destroyed) return
  await zip.finish()
}

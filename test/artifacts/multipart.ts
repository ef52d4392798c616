// A multipart/form-data body for POST /api/tool-run, built as a stream so a
// large file is generated as it is sent (never one Buffer).
import { Readable } from 'node:stream'
import { randomBytes } from 'node:crypto'

export interface FormFile { field?: string, name: string, type: string, data?: Buffer, size?: number }

/** Text fields in order, then at most one file (its bytes given, or `size` bytes of 'x' generated). */
export function multipartBody (fields: Array<[string, string]>, file?: FormFile, options: { fileFirst?: boolean } = {}): { payload: Readable, headers: Record<string, string> } {
  const boundary = `----h5${randomBytes(8).toString('hex')}`
  const fieldParts = fields.map(([k, v]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`))
  async function * body (): AsyncGenerator<Buffer> {
    if (!options.fileFirst) yield * fieldParts
    if (file) {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`)
      if (file.data) yield file.data
      else {
        const chunk = Buffer.alloc(64 * 1024, 'x')
        for (let left = file.size ?? 0; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left)
      }
      yield Buffer.from('\r\n')
    }
    if (options.fileFirst) yield * fieldParts
    yield Buffer.from(`--${boundary}--\r\n`)
  }
  return { payload: Readable.from(body()), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

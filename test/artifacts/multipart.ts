// A multipart/form-data body for POST /api/tool-run, built as a stream so a
// large file is generated as it is sent (never one Buffer).
import { Readable } from 'node:stream'
import { randomBytes } from 'node:crypto'

export interface FormFile { field?: string, name: string, type: string, data?: Buffer, size?: number }

export interface FormBody {
  payload: Readable
  headers: Record<string, string>
  /** The whole body's length in bytes (for a Content-Length the test chooses to send). */
  length: number
  /** Bytes the server has pulled from the body so far. */
  pulled (): number
}

/** Text fields in order, then at most one file (its bytes given, or `size` bytes of 'x' generated). */
export function multipartBody (fields: Array<[string, string]>, file?: FormFile, options: { fileFirst?: boolean } = {}): FormBody {
  const boundary = `----h5${randomBytes(8).toString('hex')}`
  const fieldParts = fields.map(([k, v]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`))
  const fileHead = file ? Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`) : null
  const fileSize = file ? (file.data?.length ?? file.size ?? 0) : 0
  const end = Buffer.from(`--${boundary}--\r\n`)
  const length = fieldParts.reduce((n, p) => n + p.length, 0) + (fileHead ? fileHead.length + fileSize + 2 : 0) + end.length
  let pulled = 0
  async function * parts (): AsyncGenerator<Buffer> {
    if (!options.fileFirst) yield * fieldParts
    if (file) {
      yield fileHead!
      if (file.data) yield file.data
      else {
        const chunk = Buffer.alloc(64 * 1024, 'x')
        for (let left = file.size ?? 0; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left)
      }
      yield Buffer.from('\r\n')
    }
    if (options.fileFirst) yield * fieldParts
    yield end
  }
  async function * counted (): AsyncGenerator<Buffer> {
    for await (const chunk of parts()) { pulled += chunk.length; yield chunk }
  }
  return { payload: Readable.from(counted()), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, length, pulled: () => pulled }
}

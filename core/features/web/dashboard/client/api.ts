// The API as the dashboard calls it. The key lives in sessionStorage (gone
// when the tab closes, never in a URL or a cookie) and travels in the
// x-api-key header; downloads are fetched with it and handed to the browser
// as blobs, so no key ever appears in an address.
import type { Static } from 'typebox'
import type { MeResponse, MintedTokenAnswer, TokenListAnswer, UserAnswer, LoginAnswer, RegeneratedKeyAnswer } from '../../../../accounts/schemas.ts'
import type { JobInputSchema, JobListSchema, JobResultsSchema, JobStarted, JobStatusSchema } from '../../../../jobs/schemas.ts'
import type { ToolListAnswer } from '../../../../tools/tool-list-schema.ts'
import type { MonitorChangesSchema, MonitorDetail, MonitorList, MonitorView } from '../../../../monitors/schemas.ts'

export type Me = Static<typeof MeResponse>
export type ToolList = Static<typeof ToolListAnswer>
export type ToolInfo = ToolList['tools'][number]
export type JobStatus = Static<typeof JobStatusSchema>
export type JobList = Static<typeof JobListSchema>
export type JobResults = Static<typeof JobResultsSchema>
export type JobInput = Static<typeof JobInputSchema>
export type Started = Static<typeof JobStarted>
export type TokenList = Static<typeof TokenListAnswer>
export type MintedToken = Static<typeof MintedTokenAnswer>
export type Signup = Static<typeof UserAnswer>
export type Login = Static<typeof LoginAnswer>
export type Regenerated = Static<typeof RegeneratedKeyAnswer>
export type Monitor = Static<typeof MonitorView>
export type Monitors = Static<typeof MonitorList>
export type MonitorRecord = Static<typeof MonitorDetail>
export type MonitorChanges = Static<typeof MonitorChangesSchema>
export interface ArtifactList { job_id: string, count: number, files: Array<{ id: string, name: string, content_type: string, size: number, url: string }>, zip_url: string }

const KEY_SLOT = 'extraction-jobs.key'

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY_SLOT),
  set: (key: string) => sessionStorage.setItem(KEY_SLOT, key),
  clear: () => sessionStorage.removeItem(KEY_SLOT),
}

/** A refused call: the server's {detail} and status. */
export class ApiError extends Error {
  constructor (readonly status: number, readonly detail: string) { super(detail) }
}

function headers (json: boolean): Record<string, string> {
  const out: Record<string, string> = {}
  const key = session.key()
  if (key) out['x-api-key'] = key
  if (json) out['content-type'] = 'application/json'
  return out
}

async function refusal (res: Response): Promise<ApiError> {
  let detail = `${res.status} ${res.statusText}`
  try {
    const body = await res.json() as { detail?: unknown }
    if (typeof body.detail === 'string') detail = body.detail
  } catch { /* not JSON: the status says enough */ }
  return new ApiError(res.status, detail)
}

/** A JSON call; a FormData body (a file upload) goes as multipart, the browser setting its content type. */
export async function call<T> (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const form = body instanceof FormData
  const res = await fetch(path, {
    method,
    headers: headers(body !== undefined && !form),
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  })
  if (!res.ok) throw await refusal(res)
  return await res.json() as T
}

/** A file fetched with the key. */
export async function fetchBlob (path: string): Promise<Blob> {
  const res = await fetch(path, { headers: headers(false), credentials: 'omit', cache: 'no-store' })
  if (!res.ok) throw await refusal(res)
  return await res.blob()
}

/** Fetches with the key and saves as `fileName` (a blob: link clicked, then let go). */
export async function download (path: string, fileName: string): Promise<void> {
  const blob = await fetchBlob(path)
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}

/** An image fetched with the key, as a data: URL (the page's CSP admits data: images, not blob: ones). */
export async function imageDataUrl (path: string): Promise<string> {
  const blob = await fetchBlob(path)
  return await new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(blob)
  })
}

/** The progress socket of a job; the key goes in the first message (a browser cannot set headers on a WebSocket). */
export function progressSocket (jobId: string): WebSocket {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
  const socket = new WebSocket(`${scheme}://${location.host}/api/tool-run/${encodeURIComponent(jobId)}/ws`)
  socket.addEventListener('open', () => socket.send(JSON.stringify({ type: 'auth', api_key: session.key() })))
  return socket
}

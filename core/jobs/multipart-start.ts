// POST /api/tool-run as multipart/form-data: fields `tool`, `params` (JSON
// text), optionally `webhook` (JSON text), and one file, for a tool whose
// declaration takes an upload. The file is streamed to disk under the
// caller's tier cap and within what is left of the account's budget for
// pending uploads (core/artifacts/upload-budget.ts: a body whose
// Content-Length cannot fit is refused before a byte is read; 413 or 429,
// nothing kept, nothing charged); every other refusal (400, 403, 410, 415)
// also comes before the charge, and the file is discarded by JobService.start
// when the start is refused after it.
import type { FastifyRequest } from 'fastify'
import type { MultipartFile, Multipart } from '@fastify/multipart'
import { requireAccount, requireToolAllowed } from '../auth/guards.ts'
import { AppError, badRequest, isAppError, payloadTooLarge, unsupportedMediaType } from '../errors.ts'
import { assertBodyDepth } from '../body-depth.ts'
import { MB, tierLimits } from '../quotas/tiers.ts'
import type { ToolRegistry } from '../tools/registry.ts'
import type { UploadDeclaration } from '../tools/contract.ts'
import { StoreSizeLimitError } from '../artifacts/artifact-store.ts'
import type { IncomingUpload, JobWorkspace, UploadHold } from '../artifacts/job-workspace.ts'
import type { UploadBudget } from '../artifacts/upload-budget.ts'
import { contentTypeMatches, safeContentType, safeFileName } from '../artifacts/file-names.ts'

export interface MultipartStart { body: { tool: string, params?: Record<string, unknown>, webhook?: unknown }, upload: IncomingUpload | null }

const FIELDS = new Set(['tool', 'params', 'webhook'])
/** A text field is held in memory: as much as a JSON body may be. */
const FIELD_LIMIT_BYTES = 1024 * 1024
/**
 * The most a form's other parts take: its text fields at their limit and
 * every part's boundary and headers. A body longer than the file's cap by
 * more than this holds a file past the cap (a padded preamble counts as file).
 */
const FORM_ALLOWANCE_BYTES = FIELDS.size * FIELD_LIMIT_BYTES + (FIELDS.size + 1) * 64 * 1024

/** The request's declared body length, or null (chunked, or not a number). */
function declaredLength (headers: FastifyRequest['headers']): number | null {
  const value = headers['content-length']
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : null
}

/** The tool's upload declaration, or 400 for a tool that takes none (410 and friends for an unknown key). */
export function uploadDeclaration (registry: ToolRegistry, tool: string): UploadDeclaration {
  registry.catalog.check(tool)
  const declared = registry.get(tool)?.declaration.upload
  if (!declared) throw badRequest(`The tool '${tool}' takes no uploaded file; send its params as JSON.`)
  return declared
}

/** 415 unless the file's declared type is one the tool accepts. */
export function assertUploadType (tool: string, declared: UploadDeclaration, contentType: string): void {
  if (!contentTypeMatches(contentType, declared.contentTypes)) {
    throw unsupportedMediaType(`The tool '${tool}' takes ${declared.contentTypes.join(', ')} files, not ${contentType}.`)
  }
}

function jsonField (name: string, text: string): unknown {
  let value: unknown
  try { value = JSON.parse(text) } catch { throw badRequest(`The ${name} field is not valid JSON.`) }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`The ${name} field must be a JSON object.`)
  assertBodyDepth(value)
  return value
}

export async function readMultipartStart (req: FastifyRequest, deps: { registry: ToolRegistry, workspace: JobWorkspace, budget: UploadBudget }): Promise<MultipartStart> {
  // Who is calling, before a byte of the file is read: a bad key costs no disk.
  const caller = requireAccount(req.principal, { scoped: true })
  const limits = tierLimits(caller.tier)
  const maxBytes = limits.max_file_mb * MB
  const tooLarge = (headers: Record<string, string> = {}) => new AppError(413, `The file is larger than the ${limits.max_file_mb} MB upload limit of the ${caller.tier} tier; nothing was charged.`, { headers })
  // A declared length says how large the file is at most, and at least (less the other parts): a file that cannot fit is refused unread.
  const declared = declaredLength(req.headers)
  const fileAtLeast = declared === null ? 0 : declared - FORM_ALLOWANCE_BYTES
  if (fileAtLeast > maxBytes) throw tooLarge({ connection: 'close' })
  await deps.budget.checkDeclared(caller, fileAtLeast)
  const fields: Record<string, string> = {}
  let upload: IncomingUpload | null = null
  try {
    const parts: AsyncIterable<Multipart> = req.parts({ limits: { files: 1, fields: FIELDS.size, parts: FIELDS.size + 1, fieldSize: FIELD_LIMIT_BYTES, fileSize: maxBytes } })
    for await (const part of parts) {
      if (part.type === 'field') {
        if (!FIELDS.has(part.fieldname)) throw badRequest(`Unknown form field '${safeFileName(part.fieldname).slice(0, 40)}'; send tool, params (JSON text) and one file.`)
        if (part.valueTruncated) throw payloadTooLarge(`The ${part.fieldname} field is larger than 1 MB.`)
        fields[part.fieldname] = typeof part.value === 'string' ? part.value : JSON.stringify(part.value)
        continue
      }
      const file = part as MultipartFile
      const contentType = safeContentType(file.mimetype)
      const name = safeFileName(file.filename || 'upload')
      // When the tool came first, a refused file is refused before it is read.
      if (fields.tool !== undefined) {
        try {
          requireToolAllowed(caller, fields.tool)
          assertUploadType(fields.tool, uploadDeclaration(deps.registry, fields.tool), contentType)
        } catch (err) {
          // The rest of the file is read and dropped, so the request ends and the answer reaches the client.
          file.file.resume()
          throw err
        }
      }
      // The file takes its place in the account's budget before its first byte is written; the writer stops at it.
      let hold: UploadHold
      try {
        hold = await deps.budget.hold(caller, { atLeast: fileAtLeast, atMost: Math.min(maxBytes, declared ?? maxBytes) })
      } catch (err) {
        file.file.resume()
        throw err
      }
      try {
        upload = await deps.workspace.receive(file.file, { name, contentType }, maxBytes, undefined, hold)
      } catch (err) {
        if (err instanceof StoreSizeLimitError && err.maxBytes < maxBytes) throw deps.budget.refusal(caller, err.maxBytes)
        if (err instanceof StoreSizeLimitError || file.file.truncated) throw tooLarge()
        throw err
      }
      // Busboy stops a file at the cap and marks it cut: exactly at the cap is still too large.
      if (file.file.truncated) throw tooLarge()
    }
    if (fields.tool === undefined) throw badRequest('The form has no tool field.')
    if (upload) {
      requireToolAllowed(caller, fields.tool)
      assertUploadType(fields.tool, uploadDeclaration(deps.registry, fields.tool), upload.contentType)
    }
    const body: MultipartStart['body'] = { tool: fields.tool }
    if (fields.params !== undefined) body.params = jsonField('params', fields.params) as Record<string, unknown>
    if (fields.webhook !== undefined) body.webhook = jsonField('webhook', fields.webhook)
    return { body, upload }
  } catch (err) {
    if (upload) await deps.workspace.discard(upload)
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge()
    throw asClientError(err)
  }
}

/** Busboy's and the plugin's own failures (a cut body, a second file) are the client's: {detail}, never a 500. */
function asClientError (err: unknown): unknown {
  if (isAppError(err)) return err
  const e = err as { code?: string, statusCode?: number, message?: string }
  if (e.code === 'FST_FILES_LIMIT' || e.code === 'FST_PARTS_LIMIT' || e.code === 'FST_FIELDS_LIMIT') return badRequest('Send one file with the fields tool and params, nothing more.')
  if (e.code === 'FST_PROTO_VIOLATION' || e.code === 'FST_INVALID_JSON_FIELD_ERROR' || e.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return badRequest('The multipart body is malformed.')
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new AppError(e.statusCode, 'The multipart body is malformed.')
  // Busboy's parse errors ("Unexpected end of form", a bad boundary) carry no code.
  if (err instanceof Error && !(e.code && /^E[A-Z]+$/.test(e.code))) return badRequest('The multipart body is malformed or was cut short.')
  return err
}

// Turns anything thrown during a request into `{detail}` with the right status.
// 5xx details never carry the cause: no stack, no SQL, no driver message.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, badRequest, describeValidation, internalError, isAppError, malformedJson, payloadTooLarge, unavailable, unsupportedMediaType, type ValidationIssue } from './errors.ts'
import { acceptsHtml, sendErrorPage, type HtmlErrorPage } from './html-error-pages.ts'

const DATABASE_DOWN = /P1001|P1002|P1017|ECONNREFUSED|database is locked|SQLITE_BUSY|Connection terminated/
/** A transaction that could not start or finish in time (TRANSACTION_OPTIONS, core/db/database.ts), or no pool connection: busy, not broken. */
const DATABASE_BUSY = /\bP2028\b|\bP2024\b/

/** `htmlErrorPage`: a feature's page for browsers (core/feature.ts), or null: `{detail}` only. */
export function errorHandler (error: FastifyError & { validation?: ValidationIssue[], validationContext?: string }, request: FastifyRequest, reply: FastifyReply, htmlErrorPage: HtmlErrorPage | null = null): void {
  const known = toAppError(error, request)
  if (isAppError(error) && error.statusCode >= 500) request.log.warn({ err: error }, 'request failed')
  // A page for browsers answers a browser with an error page: same status, same detail.
  if (htmlErrorPage && request.routeOptions?.config?.webPage && acceptsHtml(request)) return sendErrorPage(reply, known, htmlErrorPage)
  reply.code(known.statusCode).headers(known.headers).send({ detail: known.detail, ...known.extra })
}

/** Anything thrown during a request, as an entry of the catalogue in errors.ts. */
function toAppError (error: FastifyError & { validation?: ValidationIssue[], validationContext?: string }, request: FastifyRequest): AppError {
  if (isAppError(error)) return error
  if (error.validation) return badRequest(describeValidation(error.validationContext, error.validation))
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return payloadTooLarge()
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return malformedJson()
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return unsupportedMediaType()
    case 'FST_ERR_BAD_URL': return badRequest('The URL is malformed (a bad percent-escape).')
  }
  if (error instanceof SyntaxError) return malformedJson()
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500 && typeof error.code === 'string' && error.code.startsWith('FST_')) return new AppError(status, error.message)
  const text = `${(error as { code?: string }).code ?? ''} ${error.message ?? ''}`
  // PostgreSQL refuses a NUL character in text (SQLSTATE 22021); only a client puts one there.
  if (/\b22021\b|invalid byte sequence for encoding/.test(text)) return badRequest('The request contains a character that cannot be stored (NUL, \\u0000).')
  if (DATABASE_BUSY.test(text)) {
    request.log.warn({ err: error }, 'database busy')
    return unavailable('The database is busy; retry shortly.', 2)
  }
  if (DATABASE_DOWN.test(text)) {
    request.log.error({ err: error }, 'database unavailable')
    return unavailable('The database is unavailable; retry shortly.', 5)
  }
  request.log.error({ err: error }, 'unhandled error')
  return internalError()
}

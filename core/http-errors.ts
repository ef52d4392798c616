// Turns anything thrown during a request into `{detail}` with the right status.
// 5xx details never carry the cause: no stack, no SQL, no driver message.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { isAppError } from './errors.ts'

interface ValidationIssue { instancePath?: string, message?: string, keyword?: string, params?: Record<string, unknown> }

export function describeValidation (part: string | undefined, issues: ValidationIssue[]): string {
  const where = part === 'querystring' ? 'query' : (part ?? 'body')
  // The most specific issue first: a missing field or a wrong value beats the union summary.
  const issue = issues.find(i => i.keyword === 'required') ?? issues.find(i => i.keyword !== 'anyOf' && i.keyword !== 'boolean') ?? issues[0]
  if (!issue) return `Invalid ${where}.`
  const required = (issue.params?.requiredProperties ?? issue.params?.missingProperty) as string[] | string | undefined
  if (issue.keyword === 'required' && required) {
    const names = Array.isArray(required) ? required : [required]
    const base = issue.instancePath ? issue.instancePath.slice(1).replace(/\//g, '.') + '.' : ''
    return `${where}.${base}${names[0]} is required.`
  }
  if (issue.keyword === 'additionalProperties') {
    const extra = issue.params?.additionalProperties as string[] | undefined
    return `${where} has an unknown field${extra?.length ? ` '${extra.join("', '")}'` : ''}.`
  }
  const field = issue.instancePath ? issue.instancePath.slice(1).replace(/\//g, '.') : ''
  return `${where}${field ? `.${field}` : ''} ${issue.message ?? 'is invalid'}.`
}

const DATABASE_DOWN = /P1001|P1002|P1017|ECONNREFUSED|database is locked|SQLITE_BUSY|Connection terminated/

export function errorHandler (error: FastifyError & { validation?: ValidationIssue[], validationContext?: string }, request: FastifyRequest, reply: FastifyReply): void {
  if (isAppError(error)) {
    if (error.statusCode >= 500) request.log.warn({ err: error }, 'request failed')
    reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail, ...error.extra })
    return
  }
  if (error.validation) {
    reply.code(400).send({ detail: describeValidation(error.validationContext, error.validation) })
    return
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      reply.code(413).send({ detail: 'Request body is larger than 1 MB.' })
      return
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      reply.code(400).send({ detail: 'The request body is not valid JSON.' })
      return
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      reply.code(415).send({ detail: 'Unsupported content type: send application/json.' })
      return
  }
  if (error instanceof SyntaxError) {
    reply.code(400).send({ detail: 'The request body is not valid JSON.' })
    return
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500 && typeof error.code === 'string' && error.code.startsWith('FST_')) {
    reply.code(status).send({ detail: error.message })
    return
  }
  const text = `${(error as { code?: string }).code ?? ''} ${error.message ?? ''}`
  // PostgreSQL refuses a NUL character in text (SQLSTATE 22021); only a client puts one there.
  if (/\b22021\b|invalid byte sequence for encoding/.test(text)) {
    reply.code(400).send({ detail: 'The request contains a character that cannot be stored (NUL, \\u0000).' })
    return
  }
  if (DATABASE_DOWN.test(text)) {
    request.log.error({ err: error }, 'database unavailable')
    reply.code(503).headers({ 'retry-after': '5' }).send({ detail: 'The database is unavailable; retry shortly.' })
    return
  }
  request.log.error({ err: error }, 'unhandled error')
  reply.code(500).send({ detail: 'Internal server error; retry.' })
}

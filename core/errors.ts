// The one catalogue of client-facing errors. Every error a client sees is
// `{detail}` with one of these statuses; anything else becomes a 500 whose
// detail hides the cause (logged server-side only).

export class AppError extends Error {
  readonly statusCode: number
  readonly headers: Record<string, string>
  /** Extra fields merged into the body next to `detail` (e.g. did-you-mean lists). */
  readonly extra: Record<string, unknown>

  constructor (statusCode: number, detail: string, options: { headers?: Record<string, string>, extra?: Record<string, unknown> } = {}) {
    // A client's error (4xx) is answered, never logged with a stack: not capturing
    // one saves each refused request (a bad key, a flood past the rate limit) the
    // stack walk, the larger part of building the error. 5xx keep theirs for the log.
    const stackTraceLimit = Error.stackTraceLimit
    if (statusCode < 500) Error.stackTraceLimit = 0
    try {
      super(detail)
    } finally {
      Error.stackTraceLimit = stackTraceLimit
    }
    this.name = 'AppError'
    this.statusCode = statusCode
    this.headers = options.headers ?? {}
    this.extra = options.extra ?? {}
  }

  get detail (): string { return this.message }
}

export const badRequest = (detail: string, extra?: Record<string, unknown>) => new AppError(400, detail, { extra })
export const unauthorized = (detail = 'Missing or invalid API key. Send your key in the x-api-key header.') => new AppError(401, detail)
export const forbidden = (detail: string) => new AppError(403, detail)
export const notFound = (detail = 'Not found.') => new AppError(404, detail)
export const timedOut = (detail: string, extra?: Record<string, unknown>) => new AppError(408, detail, { extra })
export const conflict = (detail: string) => new AppError(409, detail)
export const gone = (detail: string) => new AppError(410, detail)
export const payloadTooLarge = (detail = 'Request body is larger than 1 MB.') => new AppError(413, detail)
export const unsupportedMediaType = (detail = 'Unsupported content type: send application/json.') => new AppError(415, detail)
/** A WebSocket endpoint asked for over plain HTTP (RFC 9110: 426 names the protocol to switch to). */
export const upgradeRequired = (detail: string) => new AppError(426, detail, { headers: { upgrade: 'websocket' } })
/** A Range no byte of the file can satisfy (RFC 9110 §15.5.17): says the file's size. */
export const rangeNotSatisfiable = (size: number) =>
  new AppError(416, `The requested range is outside the file (${size} bytes).`, { headers: { 'content-range': `bytes */${size}` } })
export const malformedJson = () => new AppError(400, 'The request body is not valid JSON.')
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new AppError(429, detail, { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) } })
export const unavailable = (detail: string, retryAfterSeconds?: number) =>
  new AppError(503, detail, retryAfterSeconds ? { headers: { 'retry-after': String(retryAfterSeconds) } } : {})
export const internalError = () => new AppError(500, 'Internal server error; retry.')

export const isAppError = (value: unknown): value is AppError => value instanceof AppError

/** One TypeBox or fastify validation issue, as both report it. */
export interface ValidationIssue { instancePath?: string, message?: string, keyword?: string, params?: Record<string, unknown> }

/** One sentence for a 400 from validation issues: the request's part and the most specific issue (fastify's schemas, tool inputs, agent arguments). */
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

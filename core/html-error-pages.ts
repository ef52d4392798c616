// When an error answer is for a browser. The API keeps answering `{detail}`
// JSON (its clients parse it); a person who opens a page, or a mistyped address
// outside /api, gets an HTML page with the same status and detail when a
// feature gave the kernel one (core/feature.ts `setHtmlErrorPage`). The kernel
// draws no page of its own: without a feature's page every answer is `{detail}`.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppError } from './errors.ts'
import { qualityValues } from './accept-header.ts'

/** An error as an HTML page: the same status and detail a JSON client gets as `{detail}`. */
export type HtmlErrorPage = (status: number, detail: string) => string

/** True when the Accept header asks for text/html with a non-zero weight (a browser navigating; not curl's `*\/*`). */
export function acceptsHtml (request: FastifyRequest): boolean {
  const accept = request.headers.accept
  if (typeof accept !== 'string') return false
  return (qualityValues(accept).get('text/html') ?? 0) > 0
}

/** Paths that are the API's, where every answer stays JSON whatever the Accept header says. */
const API_PATH = /^\/(?:api|mcp)(?:[/?.]|$)|^\/openapi\.json(?:\?|$)/

/** A browser asking for a page: an unknown address answers it with an HTML 404 instead of `{detail}`. */
export function isPageRequest (request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && !API_PATH.test(request.url) && acceptsHtml(request)
}

/** A page route's error for a browser: the status, headers and detail of the `{detail}` answer, as a page. */
export function sendErrorPage (reply: FastifyReply, error: AppError, page: HtmlErrorPage): void {
  // The same address answers JSON to other clients: a shared cache must key on Accept.
  reply.code(error.statusCode).headers(error.headers).header('vary', 'accept').type('text/html; charset=utf-8').send(page(error.statusCode, error.detail))
}

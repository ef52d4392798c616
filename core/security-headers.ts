// The security headers of every HTML page the service serves (the public
// pages, the blog, /docs, the dashboard, HTML error pages), set in one place:
// an onSend hook on the root instance that looks at the answer's content type,
// so a page route cannot forget them and a new page gets them by existing.
// A route that sets its own Content-Security-Policy (a stricter one, e.g. an
// artifact download's sandbox) keeps it; the other headers are set only when absent.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply } from 'fastify'

/**
 * Scripts, styles, fonts and connections from this origin only, no inline
 * script or style (so injected markup cannot run or restyle the page), images
 * from here or data: URLs, never framed (clickjacking), no <base> rewriting
 * of relative URLs, forms post back here only.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ')

export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  // The dashboard's pages hold keys: no URL of ours reaches another site in a Referer.
  'referrer-policy': 'no-referrer',
  // For browsers older than frame-ancestors.
  'x-frame-options': 'DENY',
}

/** Sets the page headers a reply does not have yet (for code that answers outside the hook, e.g. a hijacked reply). */
function applyPageSecurityHeaders (reply: FastifyReply): void {
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) {
    if (!reply.hasHeader(name)) reply.header(name, value)
  }
}

const isHtmlContentType = (type: unknown): boolean => typeof type === 'string' && /^\s*text\/html\b/i.test(type)

async function pageSecurityHeaders (app: FastifyInstance): Promise<void> {
  // Runs on every answer, so the callback form: no promise per API request for a header look-up.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (isHtmlContentType(reply.getHeader('content-type'))) applyPageSecurityHeaders(reply)
    done(null, payload)
  })
}

export default fp(pageSecurityHeaders, { name: 'page-security-headers', fastify: '5.x' })

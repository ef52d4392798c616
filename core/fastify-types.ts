// What the kernel adds to fastify's instance and request types.
import type { Services } from './container.ts'
import type { Principal } from './auth/principal.ts'
import type { TSchema } from 'typebox'
import type { IncomingUpload } from './artifacts/job-workspace.ts'

/**
 * Who may call a route, enforced from this declaration by the auth hook
 * (core/auth/guards.ts `authorizeRoute`) before the body is read, and read by
 * OpenAPI (security, 401/403 answers):
 * - `none`: no key needed (a key that is sent is looked up, a bad one ignored);
 * - `key`: any valid key: personal, scoped, guest token or admin;
 * - `user`: a key of a caller (personal, scoped or guest token), not the admin key, which belongs to no account;
 * - `account`: a personal or scoped key of an account;
 * - `personal`: a personal sk- key only;
 * - `admin`: the admin master key (403 for everyone when ADMIN_API_KEY is unset).
 * A handler may refuse more (a scoped token's tool list, a bad key on blog reads), never less.
 */
export type RouteAuth = 'none' | 'key' | 'user' | 'account' | 'personal' | 'admin'

export const ROUTE_AUTH_CLASSES: readonly RouteAuth[] = ['none', 'key', 'user', 'account', 'personal', 'admin']

/** A route's documented answers by status: a JSON schema, or content types with their schemas. */
export type RouteResponses = Record<string, TSchema | { content: Record<string, { schema: Record<string, unknown> }> }>

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
    /** The OpenAPI document of every route (core/openapi), built on first use, when the route table is complete. */
    openapiDocument (): Record<string, unknown>
  }
  interface FastifyRequest {
    principal: Principal
    /** The file of a multipart job start, on disk until its job adopts it (core/jobs/multipart-start.ts). */
    incomingUpload: IncomingUpload | null
  }
  interface FastifyContextConfig {
    /** The route answers without looking the key up (health: the lookup needs the database it reports on). */
    keyless?: boolean
    /** Who may call it; every route declares one (boot fails otherwise). See RouteAuth. */
    auth?: RouteAuth
    /**
     * A 401 on this route carries this `WWW-Authenticate` challenge and detail
     * (the MCP endpoint: OAuth-style clients look for a Bearer challenge). OpenAPI documents it as bearer auth.
     */
    authChallenge?: { wwwAuthenticate: string, detail: string }
    /** An `admin` route that also takes the older `X-Blog-Key` (BLOG_API_KEY) instead of the admin key: blog writes. */
    acceptsBlogKey?: boolean
    /**
     * The class is enforced after the WebSocket upgrade, by the socket itself,
     * with `authorizeRoute` (the key may arrive as the first message; a refusal
     * is close code 4401, which a browser can read, not an HTTP status, which it cannot).
     */
    authAfterUpgrade?: boolean
    /** Documented answers (OpenAPI); not used to serialise, so a field a schema forgets is never dropped. */
    responses?: RouteResponses
    /** The OpenAPI tag (section of /docs). */
    tag?: string
    /**
     * A page for browsers (a feature's, core/features/web): left out of the
     * OpenAPI document, and a client whose Accept asks for text/html gets its
     * errors as the HTML page a feature gave (core/feature.ts), same status and
     * detail; every other client still gets `{detail}`.
     */
    webPage?: boolean
    /** The route also takes this multipart/form-data body (OpenAPI), besides its JSON `body` schema. */
    formBody?: Record<string, unknown>
  }
}

// What the kernel adds to fastify's instance and request types.
import type { Services } from './container.ts'
import type { Principal } from './auth/principal.ts'
import type { TSchema } from 'typebox'
import type { IncomingUpload } from './artifacts/job-workspace.ts'

/**
 * Who may call a route: `none` no key, `key` any valid key (guest included),
 * `account` a personal or scoped key of an account, `personal` a personal key
 * only, `admin` the admin key. Read by OpenAPI (security, 401/403 answers).
 */
export type RouteAuth = 'none' | 'key' | 'account' | 'personal' | 'admin'

/** A route's documented answers by status: a JSON schema, or content types with their schemas. */
export type RouteResponses = Record<string, TSchema | { content: Record<string, { schema: Record<string, unknown> }> }>

declare module 'fastify' {
  interface FastifyInstance { services: Services }
  interface FastifyRequest {
    principal: Principal
    /** The file of a multipart job start, on disk until its job adopts it (core/jobs/multipart-start.ts). */
    incomingUpload: IncomingUpload | null
  }
  interface FastifyContextConfig {
    /** The route answers without looking the key up (health: the lookup needs the database it reports on). */
    keyless?: boolean
    auth?: RouteAuth
    /** Documented answers (OpenAPI); not used to serialise, so a field a schema forgets is never dropped. */
    responses?: RouteResponses
    /** The OpenAPI tag (section of /docs). */
    tag?: string
    /** The route also takes this multipart/form-data body (OpenAPI), besides its JSON `body` schema. */
    formBody?: Record<string, unknown>
  }
}

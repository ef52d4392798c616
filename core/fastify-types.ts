// What the kernel adds to fastify's instance and request types.
import type { Services } from './container.ts'
import type { Principal } from './auth/principal.ts'

declare module 'fastify' {
  interface FastifyInstance { services: Services }
  interface FastifyRequest { principal: Principal }
  interface FastifyContextConfig {
    /** The route answers without looking the key up (health: the lookup needs the database it reports on). */
    keyless?: boolean
  }
}

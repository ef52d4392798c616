// A routes plugin names its OpenAPI tag (and the auth class most of its routes
// have) once; a route's own config still wins. The hook sits in the plugin's
// encapsulated context, so it reaches that plugin's routes only.
import type { FastifyContextConfig, FastifyInstance } from 'fastify'

export function routeDefaults (app: FastifyInstance, defaults: Pick<FastifyContextConfig, 'tag' | 'auth'>): void {
  app.addHook('onRoute', route => {
    route.config = { ...defaults, ...route.config }
  })
}

// The blog as a feature (core/feature.ts): its service, made from the
// kernel's database, clock, quotas, logger and configuration, and its
// /api/blog/* routes. The service is the app's `blog` decoration, which the
// web pages (core/features/web) read posts from.
import type { Feature } from '../../feature.ts'
import { BlogService } from './blog-service.ts'
import blogRoutes from './routes.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Posts: create, edit, read, list, generate (core/features/blog). */
    blog: BlogService
  }
}

export const blogFeature: Feature = {
  name: 'blog',
  async register (app, { services }) {
    const { db, clock, quotas, logger, config } = services
    app.decorate('blog', new BlogService(db, clock, quotas, logger, config))
    await app.register(blogRoutes)
  },
}

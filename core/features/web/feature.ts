// The web pages as a feature (core/feature.ts): the public pages and the blog's
// pages (`pages/`), /docs, and the dashboard (`dashboard/`). It gives the
// kernel the HTML error page browsers get, and reads posts from the blog
// feature's `blog` decoration.
import type { Feature } from '../../feature.ts'
import { PublicPages } from './pages/public-pages.ts'
import publicPageRoutes from './pages/routes.ts'
import docsRoutes from './pages/docs-routes.ts'
import dashboardRoutes from './dashboard/dashboard-routes.ts'

export const webFeature: Feature = {
  name: 'web-pages',
  dependencies: ['blog'],
  async register (app, host) {
    // The stylesheets (built once per app) and the page frame.
    const pages = new PublicPages()
    host.setHtmlErrorPage((status, detail) => pages.errorPage(status, detail))
    await app.register(publicPageRoutes, { pages })
    await app.register(docsRoutes)
    await app.register(dashboardRoutes)
  },
}

// What a feature is: a part of the service beside the kernel (the blog, the
// web pages: core/features/), written against the kernel's public service API
// the way a tool is written against the contract. The composition root
// (core/app.ts) hands the kernel's app builder its features; the kernel
// registers each after its own routes and imports none of them.
import type { FastifyInstance } from 'fastify'
import type { Services } from './container.ts'
import type { HtmlErrorPage } from './html-error-pages.ts'

/** What the kernel gives a feature. */
export interface FeatureHost {
  /** The kernel's services (the container's cradle): the public service API. */
  services: Services
  /**
   * Browsers' errors (a `webPage` route's, an unknown address outside the API
   * asked for as a page) are answered with this page, same status and detail;
   * without one they are `{detail}` like every other answer. One page per app.
   */
  setHtmlErrorPage (page: HtmlErrorPage): void
}

export interface Feature {
  /** Its fastify plugin's name: another feature lists it in `dependencies`. */
  name: string
  /** Features whose decorations this one uses (fastify checks they were registered first). */
  dependencies?: string[]
  /**
   * Its routes and hooks. Registered unencapsulated (fastify-plugin): what it
   * decorates the app with is seen by the features after it.
   */
  register (app: FastifyInstance, host: FeatureHost): Promise<void>
}

// A tool's status record as its dashboard view reads it. The record's route
// exists only while a tool serving it is enabled, so a 404 is not a failure:
// the view says the feature is off instead of showing an error.
import { ApiError, call } from './api.ts'
import { h } from './dom.ts'

/** The record at `path`; on a 404, `main` becomes the page's title and the `off` sentence, and the answer is null. */
export async function statusRecord<T> (main: HTMLElement, path: string, page: { title: string, off: string }): Promise<T | null> {
  try {
    return await call<T>('GET', path)
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err
    main.replaceChildren(h('h1', { tabindex: -1 }, page.title), h('p', {}, page.off))
    return null
  }
}

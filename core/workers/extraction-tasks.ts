// The work the extraction pool's workers do: named tasks over the pure helpers of
// this folder, and calls into a plugin's own pure parser module. This module runs
// inside the worker threads (extraction-worker.mjs imports it); it holds no state
// beyond the module cache, so a worker that is replaced loses nothing.
//
// Each task's modules load on its first use in a worker (a worker that only runs a
// plugin's SERP parser never loads the DOM library), and loading is not parsing:
// the task's clock starts once its function is in hand (`markStarted`).
import type { ContactScanOptions, PageContacts } from '../tools/contract.ts'

export type ExtractionTask =
  | { kind: 'page', html: string, url: string }
  | { kind: 'contacts', html: string, url: string, options: ContactScanOptions }
  | { kind: 'emails', html: string, url: string }
  | { kind: 'phones', html: string, defaultCountry?: string }
  | { kind: 'socials', html: string, url: string }
  /** A plugin's parser: `module` is a file: URL, `name` one of its exports. */
  | { kind: 'call', module: string, name: string, args: unknown[] }
  /** Loads the page readers and scanners, parses nothing: a worker made ready before a timed crawl. */
  | { kind: 'warm' }

/** What a worker hands back: errors travel as data, so their kind survives the thread boundary. */
export type TaskOutcome =
  | { ok: true, value: unknown }
  | { ok: false, name: string, message: string }

/** E-mails (typed role/personal), phones, socials and links of one page: webemail's scan. */
export async function pageContacts (html: string, url: string, options: ContactScanOptions = {}): Promise<PageContacts> {
  const [{ findEmails, classifyEmail }, { findPhones }, { findSocialLinks }, { extractLinks }] = await Promise.all([
    import('../../plugins/lib/emails.ts'), import('../../plugins/lib/phones.ts'), import('../../plugins/lib/socials.ts'), import('../../plugins/lib/page.ts'),
  ])
  return {
    emails: findEmails(html, url).map(found => ({ ...found, type: classifyEmail(found.email) })),
    phones: options.phones ? findPhones(html, { defaultCountry: options.defaultCountry }) : [],
    socials: options.socials ? findSocialLinks(html, url) : [],
    links: extractLinks(html, url),
  }
}

type Prepared = () => unknown

/** Loads what the task needs and returns the work itself, not yet started. */
async function prepare (task: ExtractionTask): Promise<Prepared> {
  switch (task.kind) {
    case 'page': {
      const { extractPage } = await import('../../plugins/lib/page.ts')
      return () => extractPage(task.html, task.url)
    }
    case 'contacts': {
      await Promise.all([import('../../plugins/lib/emails.ts'), import('../../plugins/lib/phones.ts'), import('../../plugins/lib/socials.ts'), import('../../plugins/lib/page.ts')])
      return () => pageContacts(task.html, task.url, task.options)
    }
    case 'warm': {
      await Promise.all([import('../../plugins/lib/emails.ts'), import('../../plugins/lib/phones.ts'), import('../../plugins/lib/socials.ts'), import('../../plugins/lib/page.ts')])
      return () => null
    }
    case 'emails': {
      const { findEmails } = await import('../../plugins/lib/emails.ts')
      return () => findEmails(task.html, task.url)
    }
    case 'phones': {
      const { findPhones } = await import('../../plugins/lib/phones.ts')
      return () => findPhones(task.html, { defaultCountry: task.defaultCountry })
    }
    case 'socials': {
      const { findSocialLinks } = await import('../../plugins/lib/socials.ts')
      return () => findSocialLinks(task.html, task.url)
    }
    case 'call': {
      // Only local modules: a task names code shipped with the service, never a remote URL.
      if (!task.module.startsWith('file:')) throw new TypeError(`an extraction task module must be a file: URL, not ${task.module.slice(0, 80)}`)
      const loaded = await import(task.module) as Record<string, unknown>
      const fn = loaded[task.name]
      if (typeof fn !== 'function') throw new TypeError(`${task.module} has no exported function ${task.name}`)
      return () => (fn as (...args: unknown[]) => unknown)(...task.args)
    }
  }
}

/**
 * Runs a task and reports any error as data (a stack overflow included: it is
 * caught here, in the worker). `markStarted` is called when the parsing begins.
 */
export async function settleExtractionTask (task: ExtractionTask, markStarted: () => void = () => {}): Promise<TaskOutcome> {
  try {
    const work = await prepare(task)
    markStarted()
    return { ok: true, value: await work() }
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err))
    return { ok: false, name: error.name, message: error.message.slice(0, 500) }
  }
}

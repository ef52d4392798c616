// The work the extraction pool's workers do: named tasks over the pure helpers of
// this folder, and calls into a plugin's own pure parser module. This module runs
// inside the worker threads (extraction-worker.ts imports it); it holds no state
// beyond the module cache, so a worker that is replaced loses nothing.
import { extractPage } from './page.ts'
import { classifyEmail, findEmails } from './emails.ts'
import { findPhones } from './phones.ts'
import { findSocialLinks } from './socials.ts'
import { extractLinks } from './page.ts'
import type { ContactScanOptions, PageContacts } from '../tools/contract.ts'

export type ExtractionTask =
  | { kind: 'page', html: string, url: string }
  | { kind: 'contacts', html: string, url: string, options: ContactScanOptions }
  | { kind: 'emails', html: string, url: string }
  | { kind: 'phones', html: string, defaultCountry?: string }
  | { kind: 'socials', html: string, url: string }
  /** A plugin's parser: `module` is a file: URL, `name` one of its exports. */
  | { kind: 'call', module: string, name: string, args: unknown[] }

/** What a worker hands back: errors travel as data, so their kind survives the thread boundary. */
export type TaskOutcome =
  | { ok: true, value: unknown }
  | { ok: false, name: string, message: string }

export function pageContacts (html: string, url: string, options: ContactScanOptions = {}): PageContacts {
  return {
    emails: findEmails(html, url).map(found => ({ ...found, type: classifyEmail(found.email) })),
    phones: options.phones ? findPhones(html, { defaultCountry: options.defaultCountry }) : [],
    socials: options.socials ? findSocialLinks(html, url) : [],
    links: extractLinks(html, url),
  }
}

async function callModule (module: string, name: string, args: unknown[]): Promise<unknown> {
  // Only local modules: a task names code shipped with the service, never a remote URL.
  if (!module.startsWith('file:')) throw new TypeError(`extraction task module must be a file: URL, got ${module.slice(0, 80)}`)
  const loaded = await import(module) as Record<string, unknown>
  const fn = loaded[name]
  if (typeof fn !== 'function') throw new TypeError(`${module} has no exported function ${name}`)
  return await (fn as (...a: unknown[]) => unknown)(...args)
}

export async function runExtractionTask (task: ExtractionTask): Promise<unknown> {
  switch (task.kind) {
    case 'page': return extractPage(task.html, task.url)
    case 'contacts': return pageContacts(task.html, task.url, task.options)
    case 'emails': return findEmails(task.html, task.url)
    case 'phones': return findPhones(task.html, { defaultCountry: task.defaultCountry })
    case 'socials': return findSocialLinks(task.html, task.url)
    case 'call': return callModule(task.module, task.name, task.args)
  }
}

/** Runs a task and reports any error as data (a stack overflow included: it is caught here, in the worker). */
export async function settleExtractionTask (task: ExtractionTask): Promise<TaskOutcome> {
  try {
    return { ok: true, value: await runExtractionTask(task) }
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err))
    return { ok: false, name: error.name, message: error.message.slice(0, 500) }
  }
}

// The work the extraction pool's workers do: calls into pure parser modules
// (a plugin's own, or the plugin library's page scanners), named by file URL and
// export. This module runs inside the worker threads (extraction-worker.mjs
// imports it); it knows no parser by name and holds no state beyond the module
// cache, so a worker that is replaced loses nothing.
//
// A task's module loads on its first use in a worker (a worker that only runs a
// plugin's SERP parser never loads the DOM library), and loading is not parsing:
// the task's clock starts once its function is in hand (`markStarted`).

export type ExtractionTask =
  /** A pure function: `module` is a file: URL, `name` one of its exports, `args` cloneable. */
  | { kind: 'call', module: string, name: string, args: unknown[] }
  /** Loads these modules, parses nothing: a worker made ready before a timed crawl. */
  | { kind: 'warm', modules: string[] }

/** What a worker hands back: errors travel as data, so their kind survives the thread boundary. */
export type TaskOutcome =
  | { ok: true, value: unknown }
  | { ok: false, name: string, message: string }

type Prepared = () => unknown

/** Only local modules: a task names code shipped with the service, never a remote URL. */
function localModule (module: string): string {
  if (!module.startsWith('file:')) throw new TypeError(`an extraction task module must be a file: URL, not ${module.slice(0, 80)}`)
  return module
}

/** Loads what the task needs and returns the work itself, not yet started. */
async function prepare (task: ExtractionTask): Promise<Prepared> {
  switch (task.kind) {
    case 'warm': {
      await Promise.all(task.modules.map(module => import(localModule(module))))
      return () => null
    }
    case 'call': {
      const loaded = await import(localModule(task.module)) as Record<string, unknown>
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

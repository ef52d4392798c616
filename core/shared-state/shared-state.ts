// Shared state: what plugins get (SharedState, one view per tool, handed out
// by the contract) plus the locks the kernel itself takes
// (JobService's per-account admission). Two implementations behind it:
// memory-shared-state.ts (one process, the default) and
// redis-shared-state.ts (REDIS_URL: every process of the cluster).

/**
 * State a plugin keeps across jobs *and processes* (engine health, cooldowns,
 * politeness spacing), handed to `createState(settings, { shared })`. With
 * REDIS_URL it lives in Redis, shared by every API and worker process; without,
 * in this process's memory (bounded). Keys are the plugin's own: the kernel
 * prefixes them with the tool key, so two plugins never meet. Values are JSON.
 * While Redis is unreachable each process falls back to its own memory (logged),
 * so a call never fails for want of Redis. See core/tools/README.md.
 */
export interface SharedState {
  /** Adds `by` (default 1) and returns the new value; `ttlMs`, when given, is set when the counter is created and it expires then. */
  increment (key: string, by?: number, ttlMs?: number): Promise<number>
  /** The value last set under `key`, or undefined (never set, expired or deleted). */
  getJson<T = unknown> (key: string): Promise<T | undefined>
  /** Sets `key` to a JSON value, for `ttlMs` when given (else until deleted). */
  setJson (key: string, value: unknown, ttlMs?: number): Promise<void>
  delete (key: string): Promise<void>
  /**
   * Politeness spacing (one request a second to Nominatim, from the whole
   * cluster): waits until it is this caller's turn at `key` and resolves with
   * `done`, to call when the request is over (in a finally). One turn at a time
   * per key; a turn starts at least `intervalMs` after the previous one was
   * done, so the upstream sees the gap even when a connection was slow to open.
   * A turn not done within `maxTurnMs` (default 60 s; a process died holding
   * it) counts as done then. Rejects with the signal's reason when it aborts.
   */
  waitTurn (key: string, intervalMs: number, options?: { signal?: AbortSignal, maxTurnMs?: number }): Promise<() => void>
}

/** Ends a lock; safe to call twice, and never releases a lock another holder took after it expired. */
export type LockRelease = () => Promise<void>

export interface LockOptions {
  /** The lock expires after this (a holder that died does not block for ever). */
  ttlMs: number
  /** How long to wait for a held lock before giving up with LockBusyError. */
  waitMs: number
}

/** The lock stayed held for the whole wait. */
export class LockBusyError extends Error {
  constructor (readonly key: string) { super(`lock ${key} is held`); this.name = 'LockBusyError' }
}

export interface SharedStateService extends SharedState {
  /** A view whose keys are prefixed with the tool key: the SharedState a plugin's createState gets. */
  forTool (toolKey: string): SharedState
  /**
   * Mutual exclusion on `key` across every process sharing the state. Resolves
   * with the release; rejects with LockBusyError past `waitMs`. With Redis
   * unreachable it is this process's lock only (logged).
   */
  lock (key: string, options: LockOptions): Promise<LockRelease>
  close? (): Promise<void>
}

/** A plugin's view: every key is `<tool>:<key>` in the service below. */
export class ToolSharedState implements SharedState {
  constructor (private readonly base: SharedState, private readonly prefix: string) {}
  increment (key: string, by?: number, ttlMs?: number) { return this.base.increment(this.prefix + key, by, ttlMs) }
  getJson<T = unknown> (key: string) { return this.base.getJson<T>(this.prefix + key) }
  setJson (key: string, value: unknown, ttlMs?: number) { return this.base.setJson(this.prefix + key, value, ttlMs) }
  delete (key: string) { return this.base.delete(this.prefix + key) }
  waitTurn (key: string, intervalMs: number, options?: { signal?: AbortSignal, maxTurnMs?: number }) { return this.base.waitTurn(this.prefix + key, intervalMs, options) }
}

const GROUP_NAME = /^[a-z][a-z0-9-]{0,63}$/

/**
 * A view several plugins share (ToolStateKit.sharedGroup): keys `@<group>:<key>`,
 * apart from every tool's (a tool key has no `@`) and from the kernel's own.
 */
export function groupSharedState (base: SharedState, group: string): SharedState {
  if (!GROUP_NAME.test(group)) throw new TypeError(`shared state group "${group}": lower-case letters, digits and dashes, starting with a letter`)
  return new ToolSharedState(base, `@${group}:`)
}

export const DEFAULT_MAX_TURN_MS = 60_000

/** Resolves after `ms`, or rejects with the signal's reason. */
export function pause (ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve() }, Math.max(0, ms))
    const onAbort = () => { clearTimeout(timer); reject(signal!.reason) }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
export function unlessAborted<T> (promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      value => { signal.removeEventListener('abort', onAbort); resolve(value) },
      err => { signal.removeEventListener('abort', onAbort); reject(err) })
  })
}

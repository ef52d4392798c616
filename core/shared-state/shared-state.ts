// The kernel's side of shared state: what plugins get (the contract's
// SharedState, one view per tool) plus the locks the kernel itself takes
// (JobService's per-account admission). Two implementations behind it:
// memory-shared-state.ts (one process, the default) and
// redis-shared-state.ts (REDIS_URL: every process of the cluster).
import type { SharedState } from '../tools/contract.ts'

export type { SharedState }

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

// Per-account login backoff. The per-IP rate limit alone lets an attacker with
// many addresses try passwords against one account; here failures are counted
// per e-mail address: after MAX_FAILURES within WINDOW_MS the address is locked
// for LOCK_MS (429 with Retry-After, no scrypt run); a successful login clears
// it. Unknown addresses are counted exactly like known ones, so the answers
// never tell whether an account exists. In memory and bounded (one process
// limits what it serves, like the rate limit).
import { sha256Hex } from '../crypto.ts'
import type { Clock } from '../clock.ts'
import { BoundedMap } from '../bounded-map.ts'

interface Failures { first: number, count: number, lockedUntil: number }

export interface LoginThrottleOptions {
  maxFailures: number
  windowMs: number
  lockMs: number
  maxAccounts: number
}

const LOGIN_THROTTLE_DEFAULTS: LoginThrottleOptions = { maxFailures: 5, windowMs: 15 * 60_000, lockMs: 15 * 60_000, maxAccounts: 100_000 }

export class LoginThrottle {
  private readonly failures: BoundedMap<Failures>
  private readonly options: LoginThrottleOptions

  constructor (private readonly clock: Clock, options: Partial<LoginThrottleOptions> = {}) {
    this.options = { ...LOGIN_THROTTLE_DEFAULTS, ...options }
    this.failures = new BoundedMap(this.options.maxAccounts)
  }

  // A digest: constant-size keys, whatever length of "e-mail" a client sends.
  private key (email: string): string { return sha256Hex(email) }

  /** Seconds until this address may try again, or 0. */
  retryAfter (email: string): number {
    const f = this.failures.get(this.key(email))
    const now = this.clock().getTime()
    return f && f.lockedUntil > now ? Math.ceil((f.lockedUntil - now) / 1000) : 0
  }

  failed (email: string): void {
    const key = this.key(email)
    const now = this.clock().getTime()
    let f = this.failures.get(key)
    if (!f || now - f.first >= this.options.windowMs) {
      f = { first: now, count: 0, lockedUntil: 0 }
      this.failures.set(key, f)
    }
    f.count++
    if (f.count >= this.options.maxFailures) {
      f.lockedUntil = now + this.options.lockMs
      // Counting starts over: after the lock, MAX_FAILURES more failures lock again.
      f.first = now
      f.count = 0
    }
  }

  succeeded (email: string): void {
    this.failures.delete(this.key(email))
  }
}

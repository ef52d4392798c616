// Time is injected so tests can move it (Pro lapse, quota roll-over, retention).
export type Clock = () => Date

export const systemClock: Clock = () => new Date()

/** A clock tests can move by hand. */
export function manualClock (start: Date | string = new Date()): Clock & { advance (ms: number): void, set (to: Date | string): void } {
  let now = new Date(start).getTime()
  const clock = (() => new Date(now)) as Clock & { advance (ms: number): void, set (to: Date | string): void }
  clock.advance = (ms: number) => { now += ms }
  clock.set = (to: Date | string) => { now = new Date(to).getTime() }
  return clock
}

export const HOUR_MS = 3_600_000
export const DAY_MS = 24 * HOUR_MS


export function secondsUntilNextUtcDay (d: Date): number {
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
  return Math.ceil((next - d.getTime()) / 1000)
}

export function secondsUntilNextUtcMonth (d: Date): number {
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return Math.ceil((next - d.getTime()) / 1000)
}

// A monitor's schedule: a five-field cron expression in a time zone, or an
// interval. Ticks are instants: a cron schedule's are cron-parser's (the
// library BullMQ's job schedulers use), an interval's are the multiples of the
// interval since 1970-01-01 UTC ("every 6h": 00:00, 06:00, 12:00, 18:00 UTC),
// so every process and both schedulers name the same ticks.
import cronParser from 'cron-parser'
import { badRequest } from '../errors.ts'

export type Schedule = { cron: string, tz: string } | { every: string }

const MINUTE_MS = 60_000
const UNIT_MS: Record<string, number> = { m: MINUTE_MS, h: 60 * MINUTE_MS, d: 24 * 60 * MINUTE_MS }
/** The longest interval: a monitor runs at least once a month. */
const LONGEST_MS = 31 * UNIT_MS.d!
/** How many of a cron schedule's next ticks the shortest-interval check looks at (a week of hourly ticks). */
const CRON_SAMPLE = 200

/** `6h`, `30m`, `1d` in milliseconds, or null. */
export function everyMs (every: string): number | null {
  const m = /^([1-9][0-9]{0,4})\s*([mhd])$/.exec(every.trim())
  if (!m) return null
  return Number(m[1]) * UNIT_MS[m[2]!]!
}

function cronOf (schedule: { cron: string, tz: string }, currentDate: Date) {
  return cronParser.parseExpression(schedule.cron, { currentDate, tz: schedule.tz })
}

/**
 * The schedule, checked: a valid cron of five fields and a known time zone, or
 * an interval within a month; no two ticks closer than `shortestMinutes`.
 * Every problem is a 400 naming it.
 */
export function checkSchedule (schedule: Schedule, shortestMinutes: number, now: Date): Schedule {
  if ('every' in schedule) {
    const ms = everyMs(schedule.every)
    if (ms === null) throw badRequest(`schedule.every must be a number and a unit, m (minutes), h (hours) or d (days): "30m", "6h", "1d"; got "${schedule.every}".`)
    if (ms > LONGEST_MS) throw badRequest('schedule.every may be at most 31 days.')
    if (ms < shortestMinutes * MINUTE_MS) throw badRequest(`Your plan runs a monitor at most every ${shortestMinutes} minutes; schedule.every is shorter.`)
    return { every: schedule.every.trim() }
  }
  const cron = schedule.cron.trim().replace(/\s+/g, ' ')
  if (cron.split(' ').length !== 5) throw badRequest('schedule.cron must have five fields (minute hour day-of-month month day-of-week), e.g. "0 8 * * 1-5".')
  try {
    new Intl.DateTimeFormat('en', { timeZone: schedule.tz })
  } catch {
    throw badRequest(`schedule.tz "${schedule.tz}" is not a time zone (use an IANA name such as "Europe/Berlin" or "UTC").`)
  }
  const checked = { cron, tz: schedule.tz }
  let ticks: number[]
  try {
    const it = cronOf(checked, now)
    ticks = Array.from({ length: CRON_SAMPLE }, () => it.next().getTime())
  } catch (err) {
    throw badRequest(`schedule.cron is not a valid cron expression: ${(err as Error).message}`)
  }
  const shortest = Math.min(...ticks.slice(1).map((t, i) => t - ticks[i]!))
  if (shortest < shortestMinutes * MINUTE_MS) throw badRequest(`Your plan runs a monitor at most every ${shortestMinutes} minutes; schedule.cron has ticks ${Math.round(shortest / MINUTE_MS)} minutes apart.`)
  return checked
}

/** The first tick strictly after `after`. */
export function nextTick (schedule: Schedule, after: Date): Date {
  if ('every' in schedule) {
    const ms = everyMs(schedule.every)!
    return new Date((Math.floor(after.getTime() / ms) + 1) * ms)
  }
  return cronOf(schedule, after).next().toDate()
}

/** The last tick at or before `at`. */
export function latestTick (schedule: Schedule, at: Date): Date {
  if ('every' in schedule) {
    const ms = everyMs(schedule.every)!
    return new Date(Math.floor(at.getTime() / ms) * ms)
  }
  return cronOf(schedule, new Date(at.getTime() + 1)).prev().toDate()
}

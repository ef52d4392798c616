// What the media tools have seen of each platform: the last yt-dlp run it
// answered, the last one it refused (and which wall: a login, a bot check, a
// rate limit, a geo or IP block), and how many refusals in a row. Served as
// GET /api/media/status and shown in the dashboard, so an operator sees that
// Instagram wants a fresh cookies file before the users say so.
//
// Every media tool observes the same platforms, so the observations live in
// one state group (`sharedGroup(PLATFORM_HEALTH_GROUP)`), not per tool: with
// REDIS_URL every process writes and reads the same keys, without it the
// process's memory. Per platform three keys, so it is bounded by construction:
// `success:<p>` {at}, `refusal:<p>` {at, kind, message}, `refusals:<p>` (a
// counter a success deletes). Nothing of a user's is kept: no link, no id.
import { Nullable, Type, type ExecResult, type SharedState, type Static, type ToolEndpoint, type ToolStateKit } from '../../../core/tools/contract.ts'
import { ytdlpRefusal, type YtdlpRefusalKind } from '../media/index.ts'
import { PLATFORMS } from './platforms.ts'

export const PLATFORM_HEALTH_GROUP = 'media-platforms'

export type PlatformId = keyof typeof PLATFORMS
const PLATFORM_IDS = Object.keys(PLATFORMS) as PlatformId[]

/** Long enough to show a platform that refused weeks ago; stale observations then go. */
const OBSERVATION_TTL_MS = 30 * 24 * 3_600_000
/** A refusal's message as the status record shows it. */
const MAX_MESSAGE = 160

const REFUSAL_KINDS = ['login_required', 'rate_limited', 'bot_check', 'geo_block', 'other'] as const satisfies readonly YtdlpRefusalKind[]

/** What to do about each wall, for the record's note. */
const ADVICE: Record<YtdlpRefusalKind, string> = {
  login_required: 'a fresh cookies file of a logged-in account (the media tools\' cookies_file setting) usually ends it',
  bot_check: 'a cookies file of a signed-in account, a current yt-dlp, or another address (PROXY_URL) usually ends it',
  rate_limited: 'it passes with time; fewer calls or a cookies file help',
  geo_block: 'this server\'s address or country is refused: a proxy elsewhere (PROXY_URL) avoids it',
  other: 'the platform refused without saying why (often an outdated yt-dlp or a refused address)',
}


const PlatformHealthEntrySchema = Type.Object({
  name: Type.String({ description: 'The platform as people write it (YouTube).' }),
  last_success_at: Nullable(Type.String(), { description: 'When a yt-dlp run last read this platform (ISO 8601), null if not seen.' }),
  last_refusal_at: Nullable(Type.String(), { description: 'When the platform last refused a yt-dlp run (ISO 8601), null if not seen.' }),
  last_refusal_kind: Nullable(Type.Union([Type.Literal('login_required'), Type.Literal('rate_limited'), Type.Literal('bot_check'), Type.Literal('geo_block'), Type.Literal('other')]), { description: 'Which wall: login_required (incl. age gates), bot_check, rate_limited, geo_block (a country or IP block), other (a bare HTTP 403).' }),
  last_refusal_message: Nullable(Type.String(), { description: 'yt-dlp\'s verdict, short: no link, no video id, no advice.' }),
  consecutive_refusals: Type.Integer({ minimum: 0, description: 'Refusals since the last success (0: the last run was read, or none was refused).' }),
})
export type PlatformHealthEntry = Static<typeof PlatformHealthEntrySchema>

/** The media platforms status record (GET /api/media/status); also the endpoint's documented answer. */
export const MediaStatusSchema = Type.Object({
  observed: Type.Boolean({ description: 'Whether any media tool has run yt-dlp on a platform (kept up to 30 days, every process when REDIS_URL is set).' }),
  platforms: Type.Object(Object.fromEntries(PLATFORM_IDS.map(id => [id, PlatformHealthEntrySchema])) as Record<PlatformId, typeof PlatformHealthEntrySchema>),
  note: Type.String(),
})
export type MediaStatusRecord = Static<typeof MediaStatusSchema>

interface SuccessValue { at: string }
interface RefusalValue { at: string, kind: YtdlpRefusalKind, message: string }

/** The platform a link is on (its host or a subdomain of one of the platform's domains), or null. */
export function platformOfLink (url: string): PlatformId | null {
  let host: string
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '')
  } catch {
    return null
  }
  return PLATFORM_IDS.find(id => PLATFORMS[id].domains.some(domain => host === domain || host.endsWith(`.${domain}`))) ?? null
}

/**
 * A refusal's reason as the operator's record keeps it: without the
 * `[extractor] <id>:` prefix (the id is a user's video) and without links.
 */
export function refusalMessage (reason: string): string {
  let text = reason.replace(/^\[[^\]]{1,40}\]\s*[^\s:]{1,80}:\s*/, '').replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '(link)').trim()
  if (text.length > MAX_MESSAGE) text = `${text.slice(0, MAX_MESSAGE - 3)}...`
  return text
}

export class PlatformHealth {
  constructor (private readonly shared: SharedState, private readonly clock: () => Date = () => new Date()) {}

  /**
   * One finished yt-dlp run on `url`: exit 0 is a success, a refusal
   * (ytdlpRefusal) is recorded with its kind; anything else (the caller's link,
   * a broken extractor) says nothing about the platform letting us in. A link
   * on no platform is not recorded. Never throws: health is advice.
   */
  async observe (url: string, result: Pick<ExecResult, 'exitCode' | 'stderr'>): Promise<void> {
    const platform = platformOfLink(url)
    if (!platform) return
    try {
      if (result.exitCode === 0) return await this.recordSuccess(platform)
      const refusal = ytdlpRefusal(result.stderr)
      if (refusal) await this.recordRefusal(platform, refusal.kind, refusal.reason)
    } catch {
      // The shared state falls back to memory on its own; a failure past that loses one observation, nothing more.
    }
  }

  async recordSuccess (platform: PlatformId): Promise<void> {
    const value: SuccessValue = { at: this.clock().toISOString() }
    await Promise.all([this.shared.setJson(`success:${platform}`, value, OBSERVATION_TTL_MS), this.shared.delete(`refusals:${platform}`)])
  }

  async recordRefusal (platform: PlatformId, kind: YtdlpRefusalKind, reason: string): Promise<void> {
    const value: RefusalValue = { at: this.clock().toISOString(), kind, message: refusalMessage(reason) }
    await Promise.all([this.shared.setJson(`refusal:${platform}`, value, OBSERVATION_TTL_MS), this.shared.increment(`refusals:${platform}`, 1, OBSERVATION_TTL_MS)])
  }

  async entry (platform: PlatformId): Promise<PlatformHealthEntry> {
    const [success, refusal, refusals] = await Promise.all([
      this.shared.getJson<SuccessValue>(`success:${platform}`).catch(() => undefined),
      this.shared.getJson<RefusalValue>(`refusal:${platform}`).catch(() => undefined),
      this.shared.getJson<number>(`refusals:${platform}`).catch(() => undefined),
    ])
    const kind = refusal && (REFUSAL_KINDS as readonly string[]).includes(refusal.kind) ? refusal.kind : null
    return {
      name: PLATFORMS[platform].name,
      last_success_at: typeof success?.at === 'string' ? success.at : null,
      last_refusal_at: typeof refusal?.at === 'string' ? refusal.at : null,
      last_refusal_kind: kind,
      last_refusal_message: typeof refusal?.message === 'string' ? refusal.message : null,
      consecutive_refusals: typeof refusals === 'number' && refusals > 0 ? Math.floor(refusals) : 0,
    }
  }

  /** Every platform, as every process observed it. */
  async statusRecord (): Promise<MediaStatusRecord> {
    const entries = await Promise.all(PLATFORM_IDS.map(async id => [id, await this.entry(id)] as const))
    const platforms = Object.fromEntries(entries) as Record<PlatformId, PlatformHealthEntry>
    const observed = entries.some(([, e]) => e.last_success_at !== null || e.last_refusal_at !== null)
    const notes: string[] = []
    if (!observed) notes.push('No media tool has read a platform yet (or not in the last 30 days): states show after the first run.')
    for (const [, e] of entries) {
      if (e.consecutive_refusals === 0 || e.last_refusal_kind === null) continue
      const times = e.consecutive_refusals === 1 ? 'refused the last run' : `refused the last ${e.consecutive_refusals} runs`
      notes.push(`${e.name} ${times} (${e.last_refusal_kind.replace('_', ' ')}): ${ADVICE[e.last_refusal_kind]}.`)
    }
    if (observed && notes.length === 0) notes.push('No platform is refusing: the last run on each platform seen was read.')
    return { observed, platforms, note: notes.join(' ') }
  }
}

/** The media tools' createState: the platform health over their shared state group. */
export function createPlatformHealth (kit: ToolStateKit): PlatformHealth {
  return new PlatformHealth(kit.sharedGroup(PLATFORM_HEALTH_GROUP))
}

/** Records one finished yt-dlp run of a media tool in its platform health (ctx.state); a tool keeping none (undefined) records nothing. */
export async function observeYtdlpRun (state: PlatformHealth | undefined, url: string, result: Pick<ExecResult, 'exitCode' | 'stderr'>): Promise<void> {
  await state?.observe(url, result)
}

/** GET /api/media/status, declared by every media tool and served once (the group's first enabled tool). */
export const mediaStatusEndpoint: ToolEndpoint<PlatformHealth> = {
  method: 'GET',
  path: '/api/media/status',
  summary: 'Media platforms status record: per platform (YouTube, Instagram, TikTok, Facebook, Snapchat), the last yt-dlp run it answered, the last it refused with the kind of wall and a short message, and the refusals in a row.',
  auth: 'key',
  response: MediaStatusSchema,
  group: PLATFORM_HEALTH_GROUP,
  handle: async ({ state }) => state.statusRecord(),
}

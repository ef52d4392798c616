// What this server has seen of each search backend since it started: which
// answered, which refused (and when, and why), which lack a key. `auto` uses
// it to skip engines that are cooling down after a block, and GET
// /api/search/status renders it as the Search status record.
//
// One instance per app: the kernel calls the plugin's `createState` once and
// hands the object to every run as `ctx.state` (see README.md). Nothing here
// is module-level, so independent test apps never share observations.
//
// Across processes (REDIS_URL): each observation is also written to the
// kernel's shared state (`seen:<engine>`, `blocked:<engine>`), and `refresh()`
// (before a search picks its engines, before the status record) takes in what
// other processes saw, keeping whichever observation of an engine is newer, so
// a block seen by one worker cools the engine down for every process.
import {
  AUTO_ORDER, ENGINE_CHOICES, ENGINE_IDS, PROVIDER_CREDENTIALS, backendsFor, choiceFor, isConfigured, missingCredentials,
  type CredentialLookup, type EngineChoice, type EngineId,
} from './engine-catalog.ts'
import { Nullable, Type, type ProxyHealth, type SharedState, type Static } from '../../core/tools/contract.ts'

export type Clock = () => Date

type HealthKind = Static<typeof HealthKindSchema>

export interface EngineObservation {
  kind: Exclude<HealthKind, 'unconfigured'>
  reason: string
  at: Date
}

export interface EngineHealthOptions {
  clock?: Clock
  /** Seconds an engine is skipped after it refused (default 600). */
  cooldownSeconds?: number
  /** Google refuses for longer once it has flagged an address (default 1800). */
  googleCooldownSeconds?: number
  /** The kernel's shared state (createState's kit): observations are shared with every process through it. */
  shared?: SharedState
}

/** How long a shared observation is kept: longer than any cooldown (at most a day), so a status record still shows the last block. */
const SHARED_OBSERVATION_TTL_MS = 7 * 24 * 3_600_000

interface SharedObservation { kind: EngineObservation['kind'], reason: string, at: string }

/** What the status record needs to know about configuration, beyond observations. */
export interface SearchStatusConfig {
  credential: CredentialLookup
  /** Credential name → environment variable, to name the variable in reasons. */
  credentialNames?: Readonly<Record<string, string>>
  proxyConfigured: boolean
  /** The outbound proxies' health (PROXY_URLS; with REDIS_URL the cluster's); none without proxies. */
  proxies?: ProxyHealth[]
}

const HealthKindSchema = Type.Union([Type.Literal('ok'), Type.Literal('blocked'), Type.Literal('error'), Type.Literal('unconfigured')])

const EngineHealthEntrySchema = Type.Object({
  ok: Type.Boolean(),
  kind: HealthKindSchema,
  reason: Type.String(),
  age_s: Type.Integer(),
  cooldown_remaining_s: Type.Optional(Type.Integer()),
  backend: Type.Optional(Type.String({ description: 'For an engine with several backends (duckduckgo): the backend this entry describes.' })),
})
export type EngineHealthEntry = Static<typeof EngineHealthEntrySchema>

const ProxyHealthSchema = Type.Object({
  proxy: Type.String({ description: 'scheme://host:port (never its credentials).' }),
  ok: Type.Boolean(),
  consecutive_failures: Type.Integer(),
  cooling_down: Type.Boolean(),
  cooldown_remaining_s: Type.Integer(),
  requests: Type.Integer(),
  failures: Type.Integer(),
  last_error: Nullable(Type.String()),
})

/** The Search status record (GET /api/search/status), every field of the spec; also the endpoint's documented answer. */
export const SearchStatusSchema = Type.Object({
  providers: Type.Object({ serper: Type.Boolean(), serpapi: Type.Boolean(), google_cse: Type.Boolean() }),
  proxy_configured: Type.Boolean(),
  google_ready: Type.Boolean(),
  google_cooldown_active: Type.Boolean(),
  last_google_block_reason: Type.String(),
  engines: Type.Array(Type.String()),
  engine_health_observed: Type.Boolean(),
  engines_working: Type.Array(Type.String()),
  engines_blocked: Type.Array(Type.String()),
  engines_unconfigured: Type.Array(Type.String()),
  engine_health: Type.Record(Type.String(), EngineHealthEntrySchema),
  recommended_engine: Type.String(),
  note: Type.String(),
  proxy_health: Type.Array(ProxyHealthSchema, { description: 'Each outbound proxy (PROXY_URLS) as this process sees it: a proxy that failed PROXY_FAILURE_LIMIT times in a row cools down for PROXY_COOLDOWN_MS. Empty without proxies.' }),
})
export type SearchStatusRecord = Static<typeof SearchStatusSchema>

export class EngineHealth {
  readonly startedAt: Date
  private readonly clock: Clock
  private readonly cooldownMs: number
  private readonly googleCooldownMs: number
  private readonly observations = new Map<EngineId, EngineObservation>()
  private readonly lastBlocks = new Map<EngineId, EngineObservation>()
  private readonly shared: SharedState | undefined

  constructor (options: EngineHealthOptions = {}) {
    this.clock = options.clock ?? (() => new Date())
    this.shared = options.shared
    this.cooldownMs = (options.cooldownSeconds ?? 600) * 1000
    this.googleCooldownMs = (options.googleCooldownSeconds ?? 1800) * 1000
    this.startedAt = this.clock()
  }

  /** Each record is kept here at once and written to the shared state (awaiting it only matters to other processes). */
  recordOk (engine: EngineId, reason = 'answered'): Promise<void> {
    const observation: EngineObservation = { kind: 'ok', reason, at: this.clock() }
    this.observations.set(engine, observation)
    return this.share(`seen:${engine}`, observation)
  }

  recordBlocked (engine: EngineId, reason: string): Promise<void> {
    const observation: EngineObservation = { kind: 'blocked', reason, at: this.clock() }
    this.observations.set(engine, observation)
    this.lastBlocks.set(engine, observation)
    return Promise.all([this.share(`seen:${engine}`, observation), this.share(`blocked:${engine}`, observation)]).then(() => {})
  }

  /** A failure that is not a refusal (5xx, timeout, unparseable answer): no cooldown. */
  recordError (engine: EngineId, reason: string): Promise<void> {
    const observation: EngineObservation = { kind: 'error', reason, at: this.clock() }
    this.observations.set(engine, observation)
    return this.share(`seen:${engine}`, observation)
  }

  private async share (key: string, o: EngineObservation): Promise<void> {
    if (!this.shared) return
    const value: SharedObservation = { kind: o.kind, reason: o.reason, at: o.at.toISOString() }
    // Health is advice: a write that fails leaves this process's own record, nothing worse.
    await this.shared.setJson(key, value, SHARED_OBSERVATION_TTL_MS).catch(() => {})
  }

  /** Takes in what other processes observed (a no-op without shared state); the newer observation of each engine wins. */
  async refresh (): Promise<void> {
    const shared = this.shared
    if (!shared) return
    const read = async (key: string): Promise<EngineObservation | undefined> => {
      const value = await shared.getJson<SharedObservation>(key).catch(() => undefined)
      if (!value || typeof value.at !== 'string') return undefined
      const at = new Date(value.at)
      return Number.isNaN(at.getTime()) ? undefined : { kind: value.kind, reason: String(value.reason), at }
    }
    const newer = (map: Map<EngineId, EngineObservation>, engine: EngineId, seen: EngineObservation | undefined) => {
      const mine = map.get(engine)
      if (seen && (!mine || seen.at.getTime() > mine.at.getTime())) map.set(engine, seen)
    }
    await Promise.all(ENGINE_IDS.map(async (engine) => {
      const [seen, blocked] = await Promise.all([read(`seen:${engine}`), read(`blocked:${engine}`)])
      newer(this.observations, engine, seen)
      newer(this.lastBlocks, engine, blocked)
    }))
  }

  observation (engine: EngineId): EngineObservation | undefined {
    return this.observations.get(engine)
  }

  lastBlock (engine: EngineId): EngineObservation | undefined {
    return this.lastBlocks.get(engine)
  }

  /** True once any engine has been queried since start. */
  get observed (): boolean {
    return this.observations.size > 0
  }

  cooldownSecondsFor (engine: EngineId): number {
    return (engine === 'google' ? this.googleCooldownMs : this.cooldownMs) / 1000
  }

  /** Seconds left before a blocked engine is tried again; 0 when it is not cooling down. */
  cooldownRemainingSeconds (engine: EngineId): number {
    const current = this.observations.get(engine)
    if (!current || current.kind !== 'blocked') return 0
    const until = current.at.getTime() + this.cooldownSecondsFor(engine) * 1000
    return Math.max(0, Math.ceil((until - this.clock().getTime()) / 1000))
  }

  inCooldown (engine: EngineId): boolean {
    return this.cooldownRemainingSeconds(engine) > 0
  }

  /** Engines `auto` would try now, in order: configured and not cooling down. */
  autoCandidates (credential: CredentialLookup): EngineId[] {
    return AUTO_ORDER.filter(engine => isConfigured(engine, credential) && !this.inCooldown(engine))
  }

  /** The first healthy configured engine in the auto order, or null when every one is cooling down. */
  pickAuto (credential: CredentialLookup): EngineId | null {
    return this.autoCandidates(credential)[0] ?? null
  }

  private ageSeconds (since: Date): number {
    return Math.max(0, Math.floor((this.clock().getTime() - since.getTime()) / 1000))
  }

  /**
   * One engine as callers name it (`engine` values): a name with several
   * backends (duckduckgo: html and lite) reads as working when any backend last
   * answered, else as the latest failure, with the backend it describes.
   */
  private entryFor (choice: Exclude<EngineChoice, 'auto'>, names: Readonly<Record<string, string>>, credential: CredentialLookup): EngineHealthEntry | null {
    const backends = backendsFor(choice)
    const missing = missingCredentials(backends[0]!, credential, names)
    if (missing.length) return { ok: false, kind: 'unconfigured', reason: `${missing.join(' and ')} not set`, age_s: this.ageSeconds(this.startedAt) }
    const seen = backends
      .flatMap(engine => { const o = this.observations.get(engine); return o ? [{ engine, o }] : [] })
      .sort((a, b) => b.o.at.getTime() - a.o.at.getTime())
    const pick = seen.find(s => s.o.kind === 'ok') ?? seen[0]
    if (!pick) return null
    const entry: EngineHealthEntry = { ok: pick.o.kind === 'ok', kind: pick.o.kind, reason: pick.o.reason, age_s: this.ageSeconds(pick.o.at) }
    if (pick.o.kind === 'blocked') entry.cooldown_remaining_s = Math.min(...seen.filter(s => s.o.kind === 'blocked').map(s => this.cooldownRemainingSeconds(s.engine)))
    if (backends.length > 1) entry.backend = pick.engine
    return entry
  }

  statusRecord (config: SearchStatusConfig): SearchStatusRecord {
    const names = config.credentialNames ?? {}
    // Every field names engines the way `engines` and the `engine` parameter do.
    const engineHealth: Record<string, EngineHealthEntry> = {}
    const working: string[] = []
    const blocked: string[] = []
    const unconfigured: string[] = []

    for (const choice of ENGINE_CHOICES) {
      if (choice === 'auto') continue
      const entry = this.entryFor(choice, names, config.credential)
      if (!entry) continue
      engineHealth[choice] = entry
      if (entry.kind === 'unconfigured') unconfigured.push(choice)
      if (entry.kind === 'ok') working.push(choice)
      if (entry.kind === 'blocked') blocked.push(choice)
    }

    const googleCooldown = this.inCooldown('google')
    const pick = this.pickAuto(config.credential)
    const recommended: EngineChoice = pick ? choiceFor(pick) : 'auto'
    const providers = {
      serper: isConfigured('serper', config.credential),
      serpapi: isConfigured('serpapi', config.credential),
      google_cse: isConfigured('google_cse', config.credential),
    }

    const notes: string[] = []
    if (!this.observed) notes.push('No search has run since the server started, so engine health is not measured yet (an empty engines_working means unmeasured, not broken).')
    if (pick) notes.push(`engine "auto" would use ${choiceFor(pick)} now.`)
    else notes.push('Every configured engine is cooling down after a block; searches will be refused until a cooldown ends or a provider key is set.')
    for (const engine of blocked) {
      const { reason, cooldown_remaining_s: remaining = 0 } = engineHealth[engine]!
      notes.push(remaining > 0 ? `${engine} refused (${reason}); skipped for ${remaining} s more.` : `${engine} refused earlier (${reason}); its cooldown is over and it will be tried again.`)
    }
    if (!providers.serper && !providers.serpapi && !providers.google_cse) {
      const variables = Object.values(PROVIDER_CREDENTIALS).map(list => list.map(c => names[c.name] ?? c.variable).join(' + '))
      notes.push(`No search API key is set (${variables.join(', ')}); only scraped engines are used, and they can be blocked.`)
    }
    if (googleCooldown && !config.proxyConfigured) notes.push('Google is blocking this server\'s address; a proxy (PROXY_URL or PROXY_URLS) or a provider key avoids it.')
    const proxies = config.proxies ?? []
    const cooling = proxies.filter(p => p.cooling_down)
    if (proxies.length > 0 && cooling.length === proxies.length) notes.push('Every outbound proxy is cooling down after failures in a row; requests still go through the one cooling longest.')

    return {
      providers,
      proxy_configured: config.proxyConfigured,
      google_ready: !googleCooldown,
      google_cooldown_active: googleCooldown,
      last_google_block_reason: this.lastBlocks.get('google')?.reason ?? '',
      engines: [...ENGINE_CHOICES],
      engine_health_observed: this.observed,
      engines_working: working,
      engines_blocked: blocked,
      engines_unconfigured: unconfigured,
      engine_health: engineHealth,
      recommended_engine: recommended,
      note: notes.join(' '),
      proxy_health: proxies,
    }
  }
}

/** One EngineHealth per app; the plugin's `createState`. */
export function createEngineHealth (options: EngineHealthOptions = {}): EngineHealth {
  return new EngineHealth(options)
}

// Which search backends exist, what callers call them, which credentials
// they need, and the order `engine: auto` tries them in. Shared by the
// request builders (engines.ts) and the health record (engine-health.ts).

/** A backend the plugin can query. DuckDuckGo has two (html and lite endpoints). */
export const ENGINE_IDS = ['serper', 'serpapi', 'google_cse', 'duckduckgo_html', 'duckduckgo_lite', 'brave', 'mojeek', 'bing', 'yahoo', 'google'] as const
export type EngineId = typeof ENGINE_IDS[number]

/** What a caller may pass as `engine`. */
export const ENGINE_CHOICES = ['auto', 'duckduckgo', 'bing', 'brave', 'mojeek', 'yahoo', 'google', 'serper', 'serpapi', 'google_cse'] as const
export type EngineChoice = typeof ENGINE_CHOICES[number]

const PROVIDERS = ['serper', 'serpapi', 'google_cse'] as const
export type ProviderId = typeof PROVIDERS[number]

/**
 * `auto` order: paid providers first (they do not get blocked and are only
 * tried when their key is set), then the engines most tolerant of plain HTTP
 * clients, Google last because it blocks soonest.
 */
export const AUTO_ORDER: readonly EngineId[] = ['serper', 'serpapi', 'google_cse', 'duckduckgo_html', 'duckduckgo_lite', 'brave', 'mojeek', 'bing', 'yahoo', 'google']

/** The backends an explicit choice maps to, tried in this order. */
export function backendsFor (choice: Exclude<EngineChoice, 'auto'>): EngineId[] {
  return choice === 'duckduckgo' ? ['duckduckgo_html', 'duckduckgo_lite'] : [choice]
}

/** The name a caller would pass to get this backend. */
export function choiceFor (engine: EngineId): Exclude<EngineChoice, 'auto'> {
  return engine === 'duckduckgo_html' || engine === 'duckduckgo_lite' ? 'duckduckgo' : engine
}

/**
 * Credential names (keys of tools.config.json `credentials`) each provider
 * needs, with the environment variable documented for each.
 */
export const PROVIDER_CREDENTIALS: Record<ProviderId, Array<{ name: string, variable: string }>> = {
  serper: [{ name: 'serper', variable: 'SERPER_API_KEY' }],
  serpapi: [{ name: 'serpapi', variable: 'SERPAPI_API_KEY' }],
  google_cse: [{ name: 'google_cse', variable: 'GOOGLE_CSE_API_KEY' }, { name: 'google_cse_cx', variable: 'GOOGLE_CSE_ID' }],
}

const isProvider = (engine: EngineId): engine is ProviderId => (PROVIDERS as readonly string[]).includes(engine)

export type CredentialLookup = (name: string) => string | undefined

/** The credentials a provider lacks (empty when configured; always empty for scraped engines). */
export function missingCredentials (engine: EngineId, credential: CredentialLookup, credentialNames: Readonly<Record<string, string>> = {}): string[] {
  if (!isProvider(engine)) return []
  return PROVIDER_CREDENTIALS[engine]
    .filter(c => !credential(c.name))
    .map(c => credentialNames[c.name] ?? c.variable)
}

export const isConfigured = (engine: EngineId, credential: CredentialLookup): boolean => missingCredentials(engine, credential).length === 0

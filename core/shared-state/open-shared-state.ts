// The Redis connections and the shared state of one app (or worker process),
// made before the plugins load: their createState takes the shared state.
// Without REDIS_URL: no connection, the state in this process's memory.
import type { AppConfig } from '../config.ts'
import type { Logger } from '../logger.ts'
import { RedisConnections } from '../redis/redis-connections.ts'
import { MemorySharedState } from './memory-shared-state.ts'
import { RedisSharedState } from './redis-shared-state.ts'
import type { SharedStateService } from './shared-state.ts'

export function openSharedState (config: Pick<AppConfig, 'redisUrl'>, logger: Logger): { redis: RedisConnections | null, sharedState: SharedStateService } {
  const redis = config.redisUrl ? new RedisConnections(config.redisUrl, logger) : null
  return { redis, sharedState: redis ? new RedisSharedState(redis, new MemorySharedState()) : new MemorySharedState() }
}

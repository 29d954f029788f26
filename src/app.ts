import { Redis } from 'ioredis';
import { createBearerVerifier } from './auth/bearer';
import type { Config } from './config';
import { openDatabase } from './db';
import { startBoss } from './jobs/boss';
import { KeyCache } from './keys/cache';
import { createLogger, type Logger } from './logger';
import { MemorySlots, RedisSlots, withFallback, type SlotStore } from './metering/concurrency';
import { MemoryLimiter, RedisLimiter, type Limiter } from './metering/limiter';
import type { Services } from './services';

/** Builds every shared service once at start-up: database (migrated), jobs, Redis, caches. */
export interface ServiceOptions {
  logger?: Logger;
  /** PGlite dump to initialise an empty embedded database from (used by the tests). */
  pgliteTemplate?: string;
}

export async function createServices(config: Config, options: ServiceOptions = {}): Promise<Services & { close(): Promise<void> }> {
  const logger = options.logger ?? createLogger(config.logLevel);
  if (config.generatedSecrets.length > 0) {
    logger.warn({ generated: config.generatedSecrets, dataDir: config.dataDir }, 'secrets not configured were generated into DATA_DIR; set them explicitly when several instances share a database');
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgliteTemplate: options.pgliteTemplate });
  const boss = await startBoss(database, logger);
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;
  if (redis) await redis.connect().catch((err: unknown) => logger.warn({ err: String(err) }, 'Redis not reachable at start-up'));
  const keyCacheMode = database.kind === 'pglite' ? 'local' : redis ? 'redis' : 'off';
  const svc: Services = {
    config,
    logger,
    database,
    db: database.db,
    boss,
    redis,
    keyCache: new KeyCache(keyCacheMode, redis, logger),
    limiter: redis ? withFallback<Limiter>(new RedisLimiter(redis), new MemoryLimiter(), logger, 'rate limiter') : new MemoryLimiter(),
    slots: redis ? withFallback<SlotStore>(new RedisSlots(redis), new MemorySlots(), logger, 'concurrency slots') : new MemorySlots(),
    bearer: createBearerVerifier(config.auth),
    startedAt: new Date(),
  };
  return {
    ...svc,
    async close() {
      await boss.stop({ graceful: true, timeout: 5000 }).catch(() => {});
      redis?.disconnect();
      await database.close();
    },
  };
}

/**
 * Redis must never stall a request: no offline queue, one retry, short timeouts. Callers treat
 * a failed command as "Redis unavailable" and degrade.
 */
function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let warned = false;
  redis.on('error', (err) => {
    if (!warned) logger.warn({ err: String(err) }, 'Redis error; degrading to local behaviour until it returns');
    warned = true;
  });
  redis.on('ready', () => (warned = false));
  return redis;
}

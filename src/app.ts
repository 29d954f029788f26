import { createBearerVerifier } from './auth/bearer';
import type { Config } from './config';
import { ModuleCache } from './catalog/queries';
import { syncBuiltinModules } from './catalog/sync';
import { openDatabase } from './db';
import { ActionPool } from './executions/pool';
import { closeInterruptedExecutions } from './executions/recover';
import { JavaScriptSandbox } from './executions/runtimes/sandbox';
import { SchemaCache } from './executions/schemas';
import { startBoss, trackBossHealth } from './jobs/boss';
import { DeliveryWorker } from './jobs/webhooks';
import { KeyCache } from './keys/cache';
import { createLogger, type Logger } from './logger';
import { MEMORY_PURGE_INTERVAL_MS, purgeExpiredMemory } from './memory/purge';
import { MemorySlots, RedisSlots, withFallback, type SlotStore } from './metering/concurrency';
import { MemoryLimiter, RedisLimiter, type Limiter } from './metering/limiter';
import { connectRedis, connectUpstash } from './metering/redis';
import { UsageCache } from './metering/usage';
import type { Services } from './services';
import { DELIVERY_QUEUE, deliveryQueueOptions } from './webhooks/queue';

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
  const boss = await startBoss(database, logger, [{ name: DELIVERY_QUEUE, options: deliveryQueueOptions(config.webhooks.timeoutMs) }]);
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, logger)
    : config.upstash
      ? connectUpstash(config.upstash.url, config.upstash.token)
      : undefined;
  const keyCacheMode = database.kind === 'pglite' ? 'local' : redis ? 'redis' : 'off';
  const svc: Services = {
    config,
    logger,
    database,
    db: database.db,
    boss,
    jobsHealthy: trackBossHealth(boss),
    redis,
    keyCache: new KeyCache(keyCacheMode, redis, logger),
    limiter: redis ? withFallback<Limiter>(new RedisLimiter(redis), new MemoryLimiter(), logger, 'rate limiter') : new MemoryLimiter(),
    slots: redis ? withFallback<SlotStore>(new RedisSlots(redis), new MemorySlots(), logger, 'concurrency slots') : new MemorySlots(),
    usage: new UsageCache(),
    bearer: createBearerVerifier(config.auth),
    pool: new ActionPool(),
    sandbox: new JavaScriptSandbox(),
    schemas: new SchemaCache(),
    moduleCache: new ModuleCache(),
    deliveryWorker: new DeliveryWorker(database.kind === 'pglite' ? { workers: 2, batchSize: 20 } : { workers: 4, batchSize: 25 }),
    startedAt: new Date(),
  };
  await syncBuiltinModules(database.db);
  // Embedded: this process is the only one, so anything `running` was interrupted. PostgreSQL:
  // other instances may be mid-execution; only rows older than any action's deadline are stale.
  const staleAfterMs = database.kind === 'pglite' ? 0 : 120_000;
  await closeInterruptedExecutions(svc, staleAfterMs);
  const sweeper = setInterval(() => {
    closeInterruptedExecutions(svc, 120_000).catch((err: unknown) => logger.warn({ err: String(err) }, 'could not close interrupted executions'));
  }, 60_000);
  sweeper.unref();
  // Expired memory entries (reads already hide them). A plain interval on every instance until
  // pg-boss scheduling takes over; concurrent runs are harmless.
  const memoryPurge = setInterval(() => {
    purgeExpiredMemory(svc).catch((err: unknown) => logger.warn({ err: String(err) }, 'could not purge expired memory entries'));
  }, MEMORY_PURGE_INTERVAL_MS);
  memoryPurge.unref();
  await svc.pool.warm();
  await svc.deliveryWorker.start(svc);
  return {
    ...svc,
    async close() {
      clearInterval(sweeper);
      clearInterval(memoryPurge);
      svc.deliveryWorker.stop();
      await svc.pool.close();
      await svc.sandbox.close();
      await boss.stop({ graceful: true, timeout: 5000 }).catch(() => {});
      redis?.close();
      await database.close();
    },
  };
}

import { createBearerVerifier } from './auth/bearer';
import { logSecretOrigins, warnDefaultPublicBaseUrl, type Config } from './config';
import { ModuleCache } from './catalog/queries';
import { syncBuiltinModules } from './catalog/sync';
import { openDatabase } from './db';
import { ActionPool } from './executions/pool';
import { closeInterruptedExecutions } from './executions/recover';
import { JavaScriptSandbox } from './executions/runtimes/sandbox';
import { SchemaCache } from './executions/schemas';
import { BILLING_CLOSE_QUEUE, BILLING_QUEUE_OPTIONS, startBilling } from './jobs/billing';
import {
  CERTIFICATION_QUEUE,
  CERTIFICATION_QUEUE_OPTIONS,
  CERTIFICATION_WEEKLY_OPTIONS,
  CERTIFICATION_WEEKLY_QUEUE,
} from './certification/queue';
import { AUDIT_RETENTION_QUEUE, AUDIT_RETENTION_QUEUE_OPTIONS, startAuditRetention } from './jobs/audit';
import { startCertification } from './jobs/certification';
import { notifyingQueue, startBoss, stopBoss, trackBossHealth } from './jobs/boss';
import { HOURLY_QUEUE, MAINTENANCE_QUEUE_OPTIONS, MINUTELY_QUEUE, startMaintenance } from './jobs/maintenance';
import { TRUST_DAILY_QUEUE, TRUST_QUEUE_OPTIONS, startTrust } from './jobs/trust';
import { startKeyAlerts } from './jobs/key-alerts';
import { startWebhookAlerts } from './jobs/webhook-alerts';
import { DELIVERIES_IN_FLIGHT, DELIVERY_POLL_MS, startDeliveryWorker, stopDeliveryWorker } from './jobs/webhooks';
import { startWorkflowWorkers, stopWorkflowWorkers, WORKFLOW_QUEUE_OPTIONS, WORKFLOW_STEP_QUEUE } from './jobs/workflows';
import { KEY_ALERT_QUEUE, KEY_ALERT_QUEUE_OPTIONS } from './keys/alerts';
import { KeyCache } from './keys/cache';
import { KeyRefusalCounter } from './keys/refusal-counts';
import { createLogger, type Logger } from './logger';
import { Metrics } from './metrics';
import { scrapeSources, timeLeases } from './metrics/sources';
import { MemorySlots, RedisSlots, withFallback, type SlotStore } from './metering/concurrency';
import { MemoryLimiter, RedisLimiter, type Limiter } from './metering/limiter';
import { connectRedis, connectUpstash, withKeyPrefix } from './metering/redis';
import { RequestCounter } from './metering/request-counts';
import { UsageCache } from './metering/usage';
import { sealOAuthPayloads } from './oauth/adapter';
import { DELIVERY_QUEUE, OutboxHooks } from './outbox';
import type { Services } from './services';
import { deliveryQueueOptions, retryOrphanedAttempts } from './webhooks/queue';
import { WEBHOOK_ALERT_QUEUE, WEBHOOK_ALERT_QUEUE_OPTIONS } from './webhooks/alerts';

/** Builds every shared service once at start-up: database (migrated), jobs, Redis, caches. */
export interface ServiceOptions {
  logger?: Logger;
  /** PGlite dump to initialise an empty embedded database from (used by the tests). */
  pgliteTemplate?: string;
}

export async function createServices(config: Config, options: ServiceOptions = {}): Promise<Services & { close(): Promise<void> }> {
  const logger = options.logger ?? createLogger(config.logLevel);
  logSecretOrigins(config, logger);
  warnDefaultPublicBaseUrl(config, logger);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteTemplate: options.pgliteTemplate,
    deadlines: config.database,
  });
  // OAuth payloads written in plain before they were encrypted at rest (none on a new database).
  const sealed = await sealOAuthPayloads(database.db, config.encryptionKey);
  if (sealed > 0) logger.info({ sealed }, 'oauth_store: encrypted payloads written before encryption at rest');
  const boss = await startBoss(database, logger, [
    { name: DELIVERY_QUEUE, options: deliveryQueueOptions(config.webhooks.timeoutMs) },
    { name: MINUTELY_QUEUE, options: MAINTENANCE_QUEUE_OPTIONS },
    { name: HOURLY_QUEUE, options: MAINTENANCE_QUEUE_OPTIONS },
    { name: BILLING_CLOSE_QUEUE, options: BILLING_QUEUE_OPTIONS },
    { name: CERTIFICATION_QUEUE, options: notifyingQueue(database, CERTIFICATION_QUEUE_OPTIONS) },
    { name: CERTIFICATION_WEEKLY_QUEUE, options: CERTIFICATION_WEEKLY_OPTIONS },
    { name: WORKFLOW_STEP_QUEUE, options: WORKFLOW_QUEUE_OPTIONS },
    { name: TRUST_DAILY_QUEUE, options: TRUST_QUEUE_OPTIONS },
    { name: WEBHOOK_ALERT_QUEUE, options: notifyingQueue(database, WEBHOOK_ALERT_QUEUE_OPTIONS) },
    { name: KEY_ALERT_QUEUE, options: notifyingQueue(database, KEY_ALERT_QUEUE_OPTIONS) },
    { name: AUDIT_RETENTION_QUEUE, options: AUDIT_RETENTION_QUEUE_OPTIONS },
  ]);
  const connected = config.redisUrl
    ? await connectRedis(config.redisUrl, logger)
    : config.upstash
      ? connectUpstash(config.upstash.url, config.upstash.token)
      : undefined;
  const redis = connected && withKeyPrefix(connected, config.redisKeyPrefix);
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
    requestCounts: new RequestCounter(database.db, logger),
    keyRefusals: new KeyRefusalCounter(database.db, logger),
    bearer: createBearerVerifier(config.auth),
    pool: new ActionPool(undefined, strayWorkerError(logger, 'action')),
    sandbox: new JavaScriptSandbox(config.sandboxWorkers, strayWorkerError(logger, 'sandbox')),
    schemas: new SchemaCache(),
    moduleCache: new ModuleCache(),
    outbox: new OutboxHooks(),
    metrics: new Metrics(),
    startedAt: new Date(),
  };
  svc.metrics.watch(scrapeSources(svc));
  timeLeases(svc.metrics, svc);
  svc.outbox.afterCommit(({ events, counts }) => {
    for (const [tenantId, used] of counts) svc.usage.note(tenantId, used);
    // The tenant's cached view of the catalog (src/catalog/snapshot.ts) holds its installations.
    for (const e of events)
      if (e.type === 'module.installed' || e.type === 'module.uninstalled') svc.moduleCache.invalidateTenant(e.tenantId);
  });
  await syncBuiltinModules(database.db);
  // Catalog reads come from memory; other instances reload theirs (built-ins may have changed).
  await svc.moduleCache.attach(database, config.databaseUrl, logger);
  svc.moduleCache.invalidate('*');
  // Embedded: this process is the only one, so anything `running` was interrupted. PostgreSQL:
  // other instances may be mid-execution; only rows older than any action's deadline are stale.
  await closeInterruptedExecutions(svc, database.kind === 'pglite' ? 0 : 120_000);
  if (database.kind === 'pglite') await retryOrphanedAttempts(svc);
  startDeliveryWorker(svc, {
    maxInFlight: DELIVERIES_IN_FLIGHT,
    maxRecorders: database.kind === 'pglite' ? 1 : 2,
    pollMs: DELIVERY_POLL_MS,
  });
  await startMaintenance(svc);
  await startBilling(svc);
  await startCertification(svc);
  await startWorkflowWorkers(svc);
  await startTrust(svc);
  await startWebhookAlerts(svc);
  await startKeyAlerts(svc);
  await startAuditRetention(svc);
  return {
    ...svc,
    async close() {
      await stopDeliveryWorker(svc);
      await stopWorkflowWorkers(svc);
      await svc.pool.close();
      await svc.sandbox.close();
      await stopBoss(boss, logger);
      redis?.close();
      await svc.requestCounts.close();
      await svc.keyRefusals.close();
      await svc.moduleCache.close();
      await database.close();
    },
  };
}

/** Logs a worker that failed after its task was answered (see StrayWorkerErrorHandler). */
function strayWorkerError(logger: Logger, pool: 'action' | 'sandbox') {
  return (err: Error) => logger.warn({ pool, reason: err.message }, 'a worker failed after its task ended; it was replaced');
}

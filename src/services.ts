import type { BearerVerifier } from './auth/bearer';
import type { ModuleCache } from './catalog/queries';
import type { Config } from './config';
import type { Database, Db } from './db';
import type { ActionPool } from './executions/pool';
import type { JavaScriptSandbox } from './executions/runtimes/sandbox';
import type { SchemaCache } from './executions/schemas';
import type { Boss } from './jobs/boss';
import type { KeyCache } from './keys/cache';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import type { SlotStore } from './metering/concurrency';
import type { Limiter } from './metering/limiter';
import type { RedisLike } from './metering/redis';
import type { RequestCounter } from './metering/request-counts';
import type { KeyRefusalCounter } from './keys/refusal-counts';
import type { UsageCache } from './metering/usage';
import type { OutboxHooks } from './outbox/hooks';

/** Everything a domain operation may use; built once at start-up by createServices. */
export interface Services {
  config: Config;
  logger: Logger;
  database: Database;
  db: Db;
  boss: Boss;
  /** True while pg-boss runs without recent errors. */
  jobsHealthy: () => boolean;
  /** Redis (REDIS_URL) or Upstash REST, when configured. */
  redis?: RedisLike;
  keyCache: KeyCache;
  limiter: Limiter;
  slots: SlotStore;
  usage: UsageCache;
  /** Authenticated requests per tenant per day, flushed to `request_counts` every few seconds. */
  requestCounts: RequestCounter;
  keyRefusals: KeyRefusalCounter;
  bearer: BearerVerifier;
  /** Worker threads running built-in actions. */
  pool: ActionPool;
  /** Worker threads running `javascript`-runtime modules in QuickJS. */
  sandbox: JavaScriptSandbox;
  /** Compiled action input schemas. */
  schemas: SchemaCache;
  /** Module definitions by name (short-lived). */
  moduleCache: ModuleCache;
  /** What runs after each unit of work commits (src/outbox): the delivery worker's wake-up, cache and usage updates. */
  outbox: OutboxHooks;
  /** Prometheus metrics (GET /metrics): domains count through it. */
  metrics: Metrics;
  startedAt: Date;
}

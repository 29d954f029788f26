import type { Redis } from 'ioredis';
import type { BearerVerifier } from './auth/bearer';
import type { Config } from './config';
import type { Database, Db } from './db';
import type { Boss } from './jobs/boss';
import type { KeyCache } from './keys/cache';
import type { Logger } from './logger';
import type { SlotStore } from './metering/concurrency';
import type { Limiter } from './metering/limiter';

/** Everything a domain operation may use; built once at start-up by createServices. */
export interface Services {
  config: Config;
  logger: Logger;
  database: Database;
  db: Db;
  boss: Boss;
  redis?: Redis;
  keyCache: KeyCache;
  limiter: Limiter;
  slots: SlotStore;
  bearer: BearerVerifier;
  startedAt: Date;
}

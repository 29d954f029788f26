import type { PgBoss } from 'pg-boss';
import type { Config } from '../config';
import type { Database, Db } from '../db';
import type { Logger } from '../logger';
import type { OutboxHooks } from './hooks';

/** What the outbox uses of the services (src/services.ts fits it). */
export interface OutboxServices {
  config: Pick<Config, 'webhooks'>;
  logger: Logger;
  database: Database;
  db: Db;
  boss: PgBoss;
  outbox: OutboxHooks;
}

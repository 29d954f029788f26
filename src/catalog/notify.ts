import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Executor } from '../db';
import type { Logger } from '../logger';

/** The PostgreSQL channel on which instances announce catalog changes. */
export const CATALOG_CHANNEL = 'amp_catalog';
const RECONNECT_MS = 1000;

interface Handlers {
  /** Another instance changed something (`module:<name>` or `tenant:<id>`). */
  onChange(message: string): void;
  /** Notifications may have been missed (connection lost or regained): drop everything. */
  onReset(): void;
}

/**
 * Catalog change notifications between instances sharing one PostgreSQL database: one dedicated
 * connection LISTENs; changes are sent with pg_notify after the change committed. Messages carry
 * this instance's id so it skips its own. While the connection is down, `listening` is false
 * (the cache then keeps entries one second) and it reconnects every second.
 */
export class CatalogChannel {
  readonly instanceId = randomUUID();
  listening = false;
  private client?: pg.Client;
  private closed = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly databaseUrl: string,
    private readonly db: Executor,
    private readonly logger: Logger,
    private readonly handlers: Handlers,
  ) {}

  async start(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, connectionTimeoutMillis: 5000 });
    this.client = client;
    client.on('notification', (n) => {
      const [sender, ...rest] = (n.payload ?? '').split(' ');
      if (sender !== this.instanceId) this.handlers.onChange(rest.join(' '));
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CATALOG_CHANNEL}`);
      this.listening = true;
      // Whatever changed while nobody listened is unknown.
      this.handlers.onReset();
    } catch (err) {
      this.logger.warn({ err: String(err) }, 'catalog notifications: could not listen; catalog entries live one second');
      this.lost(client);
    }
  }

  /** Fire and forget: a lost notification is bounded by the other instances' reconnect reset. */
  publish(message: string): void {
    this.db.execute(sql`select pg_notify(${CATALOG_CHANNEL}, ${`${this.instanceId} ${message}`})`).catch((err: unknown) => {
      this.logger.warn({ err: String(err) }, 'catalog notifications: could not notify');
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => {});
  }

  private lost(client: pg.Client): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.listening = false;
    client.end().catch(() => {});
    this.handlers.onReset();
    if (this.closed) return;
    this.retry = setTimeout(() => void this.start(), RECONNECT_MS);
    this.retry.unref();
  }
}

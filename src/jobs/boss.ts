import { PgBoss, fromPglite, type Queue, type QueueOptions } from 'pg-boss';
import { postgresSessionOptions, type Database } from '../db';
import type { Logger } from '../logger';

export type Boss = PgBoss;

/** A queue's options as it is created (`notify` included). */
export type QueueSettings = Omit<Queue, 'name'>;

/**
 * pg-boss looks for jobs whose worker died (heartbeat stale, or expired) every 5 s instead of
 * every minute, so a workflow step held by a dead instance runs again within about 20 s.
 */
const SUPERVISION = { superviseIntervalSeconds: 5, monitorIntervalSeconds: 5 };

/** The poll of an embedded worker that is woken for the jobs it has (idlePollSeconds). */
const NOTIFIED_POLL_SECONDS = 5;

/**
 * How often an idle worker looks for due jobs it was not woken for. On PostgreSQL, other instances
 * make jobs due: every half second. On the embedded database this process is the only one, and it
 * wakes its workers itself when it makes a job due (after the commit: the outbox's post-commit
 * hooks, or pg-boss's LISTEN/NOTIFY on queues created with `notify`; at a delayed job's due time),
 * so the poll only finds what pg-boss makes due on its own (the retry of a job whose handler
 * failed, an expired job's): every 5 s. The webhook delivery worker keeps its own half-second
 * poll (src/jobs/webhooks.ts). An idle embedded service made about 1,150 statements a minute with
 * half-second polls everywhere (docs/performance.md, Idle jobs on the embedded database).
 */
export const idlePollSeconds = (database: Pick<Database, 'kind'>): number => (database.kind === 'pglite' ? NOTIFIED_POLL_SECONDS : 0.5);

/**
 * When the jobs of `queue` that wait for their start time fall due (epoch ms, the earliest 100
 * distinct times): an embedded process wakes its workers then for the jobs an earlier run of it
 * enqueued (idlePollSeconds).
 */
export async function pendingDueTimes(boss: Boss, queue: string): Promise<number[]> {
  const { rows } = await boss.getDb().executeSql(
    `select distinct (extract(epoch from start_after) * 1000)::bigint as at from pgboss.job
        where name = $1 and state in ('created', 'retry') and start_after > now() order by 1 limit 100`,
    [queue],
  );
  return rows.map((r: { at: string | number }) => Number(r.at));
}

/** A wake-up comes this long (ms) after a job's due time: pg-boss compares it with the database's clock. */
const WAKE_LAG_MS = 5;
/** The longest delay a Node timer takes (2^31 - 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `wake` (unreferenced) just after `at`, a job's due time (epoch ms), so its worker fetches
 * it then rather than at its next poll; returns the timer. Past a timer's range (24.8 days: a
 * long sleep) it sets none and the poll takes the job when it falls due.
 */
export function wakeAt(at: number, wake: () => void): NodeJS.Timeout | undefined {
  const delay = Math.max(0, at - Date.now()) + WAKE_LAG_MS;
  return delay > MAX_TIMER_MS ? undefined : setTimeout(wake, delay).unref();
}

/**
 * Options of a queue whose jobs this process makes due at once without a post-commit wake-up of
 * its own: on the embedded database pg-boss's insert notifies (LISTEN/NOTIFY), waking the queue's
 * workers after the commit; on PostgreSQL they poll.
 */
export const notifyingQueue = (database: Pick<Database, 'kind'>, options: QueueOptions = {}): QueueSettings =>
  database.kind === 'pglite' ? { ...options, notify: true } : options;

/**
 * pg-boss on the service's own database: on PGlite through its built-in backend (sharing the one
 * connection, with LISTEN/NOTIFY in-process), on PostgreSQL through its own pool. Queues are
 * created here at start-up, because `send` to a queue that does not exist returns null.
 */
export async function startBoss(
  database: Database,
  logger: Logger,
  queues: { name: string; options?: QueueSettings }[] = [],
): Promise<Boss> {
  const boss =
    database.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.pglite!), backend: 'pglite', useListenNotify: true, ...SUPERVISION })
      : new PgBoss({ connectionString: poolConnectionString(database), max: 4, ...bossSessionOptions(database), ...SUPERVISION });
  boss.on('error', (err) => logger.error({ err }, 'pg-boss error'));
  await boss.start();
  for (const { name, options } of queues) {
    await boss.createQueue(name, options);
    if (options) await boss.updateQueue(name, options);
  }
  return boss;
}

/**
 * pg-boss's connections carry the service's deadlines (docs/operations.md, Database deadlines),
 * except that a statement may run for up to a minute: maintenance archives and deletes jobs in
 * bulk. Its own locked transactions (migrations, maintenance) set their lock and idle timeouts to
 * 30 s themselves.
 */
const BOSS_STATEMENT_TIMEOUT_MS = 60_000;

function bossSessionOptions(database: Database): object {
  const deadlines = database.deadlines!;
  const statementTimeoutMs = deadlines.statementTimeoutMs === 0 ? 0 : Math.max(deadlines.statementTimeoutMs, BOSS_STATEMENT_TIMEOUT_MS);
  return postgresSessionOptions({ ...deadlines, statementTimeoutMs });
}

function poolConnectionString(database: Database): string {
  const opts = (database.pool as unknown as { options: { connectionString?: string } }).options;
  if (!opts.connectionString) throw new Error('PostgreSQL pool has no connection string');
  return opts.connectionString;
}

/**
 * pg-boss is healthy while it runs and has not reported an error in the last minute. (Its
 * database is the service's own, which health checks separately; no query is needed here.)
 */
export function trackBossHealth(boss: Boss): () => boolean {
  let running = true;
  let lastError = 0;
  boss.on('error', () => (lastError = Date.now()));
  boss.on('stopped', () => (running = false));
  return () => running && Date.now() - lastError > 60_000;
}

/**
 * Stops pg-boss, letting its jobs in flight finish for up to 5 s. When a query of its shutdown
 * fails (e.g. on a connection a database outage reset), pg-boss gives up before it stops its
 * heartbeat and closes its pool, which would then stay open: one more attempt runs that shutdown
 * again on fresh connections; a second failure is logged.
 */
export async function stopBoss(boss: Boss, logger: Logger): Promise<void> {
  try {
    await boss.stop({ graceful: true, timeout: 5000 });
  } catch {
    await boss
      .stop({ graceful: false })
      .catch((err: unknown) => logger.warn({ err }, 'pg-boss did not stop cleanly; its connections close with the process'));
  }
}

/** Jobs `workEachJob` fetches at once: a backlog (many keys crossing a cap together) drains without waiting a poll per job. */
const BATCH_SIZE = 10;

/**
 * Works `queue` a batch of jobs at a time, each handled on its own: a job whose handler throws is
 * failed (and retried by pg-boss) alone, the others complete. While fetches come back full the
 * worker fetches again at once; otherwise it polls every `pollingIntervalSeconds`, or, woken by
 * the inserts of a queue that notifies (`notifyingQueue`), every 5 s at least.
 */
export async function workEachJob<T extends object>(
  boss: Boss,
  queue: string,
  pollingIntervalSeconds: number,
  handle: (data: T) => Promise<void>,
): Promise<void> {
  await boss.work<T>(
    queue,
    {
      pollingIntervalSeconds,
      notifyPollingIntervalSeconds: Math.max(pollingIntervalSeconds, NOTIFIED_POLL_SECONDS),
      batchSize: BATCH_SIZE,
      burstWhenBatchFull: true,
      perJobResults: true,
    },
    async (jobs) =>
      Promise.all(
        jobs.map(async (job) => {
          try {
            await handle(job.data);
            return { id: job.id, status: 'completed' as const };
          } catch (err) {
            return { id: job.id, status: 'failed' as const, output: { message: err instanceof Error ? err.message : String(err) } };
          }
        }),
      ),
  );
}

import type { FairQueue } from '../executions/fair-queue';
import type { Services } from '../services';
import type { Metrics, PoolName, ScrapeSources } from '.';

/** A scrape waits at most this long for pg-boss's queue counts, then reports the last ones. */
const QUEUE_DEPTH_TIMEOUT_MS = 2000;

/** What the scrape-time gauges read: the worker pools, the database pool and pg-boss's cached queue counts. */
export function scrapeSources(svc: Pick<Services, 'pool' | 'sandbox' | 'database' | 'boss'>): ScrapeSources {
  return {
    pools: () => [
      { pool: 'actions', busy: svc.pool.queue.inUse, capacity: svc.pool.queue.capacity, waiting: svc.pool.queue.waitingCount },
      { pool: 'javascript', busy: svc.sandbox.queue.inUse, capacity: svc.sandbox.queue.capacity, waiting: svc.sandbox.queue.waitingCount },
    ],
    dbConnections: () => {
      const pool = svc.database.pool;
      // PGlite is one connection inside this process; its queries queue behind each other.
      if (!pool) return { total: 1 };
      return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
    },
    queueDepths: async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('queue counts timed out')), QUEUE_DEPTH_TIMEOUT_MS);
      });
      try {
        const queues = await Promise.race([svc.boss.getQueues(), timeout]);
        return queues.map((q) => ({ queue: q.name, ready: q.readyCount, deferred: q.deferredCount, active: q.activeCount }));
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Times every lease taken from the worker pools' fair queues (amp_fair_queue_wait_seconds),
 * whoever takes it (executions, expressions), without the callers knowing.
 */
export function timeLeases(metrics: Metrics, svc: Pick<Services, 'pool' | 'sandbox'>): void {
  const wrap = (queue: FairQueue, pool: PoolName) => {
    const admit = queue.admit.bind(queue);
    queue.admit = (...args) => metrics.leased(pool, admit(...args));
  };
  wrap(svc.pool.queue, 'actions');
  wrap(svc.sandbox.queue, 'javascript');
}

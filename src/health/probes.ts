/**
 * The liveness and readiness probes (GET /api/v1/health/live, /api/v1/health/ready). Live answers
 * while the process runs; ready only while this instance should be sent traffic: its services are
 * built (the migrations ran at start-up), the database answers, Redis answers when one is
 * configured, the job queue runs, and no shutdown has begun.
 */
import type { Services } from '../services';

export type Phase = 'starting' | 'serving' | 'draining';
type Check = 'ok' | 'down' | 'unknown';

export interface Readiness {
  status: 'ok' | 'not_ready';
  phase: Phase;
  checks: {
    database: Check;
    redis: Check | 'disabled';
    jobs: Check;
    migrations: 'ok' | 'pending';
  };
}

export function checkLiveness() {
  return { status: 'ok' } as const;
}

/** The instances whose shutdown has begun: they stay live but are no longer ready. */
const draining = new WeakSet<Services>();

export function markDraining(svc: Services): void {
  draining.add(svc);
}

/** Whether the instance's shutdown has begun (long-lived answers, such as event streams, end then). */
export function isDraining(svc: Services): boolean {
  return draining.has(svc);
}

/** What ready answers before the services exist: nothing is checked yet. */
export function startingReadiness(): Readiness {
  return {
    status: 'not_ready',
    phase: 'starting',
    checks: { database: 'unknown', redis: 'unknown', jobs: 'unknown', migrations: 'pending' },
  };
}

export async function checkReadiness(svc: Services): Promise<Readiness> {
  if (draining.has(svc)) {
    const unknown = 'unknown' as const;
    return {
      status: 'not_ready',
      phase: 'draining',
      checks: { database: unknown, redis: svc.redis ? unknown : 'disabled', jobs: unknown, migrations: 'ok' },
    };
  }
  const [database, redis] = await Promise.all([svc.database.ping(2000), redisCheck(svc)]);
  const jobs = database && svc.jobsHealthy();
  const ready = database && jobs && redis !== 'down';
  return {
    status: ready ? 'ok' : 'not_ready',
    phase: 'serving',
    checks: { database: database ? 'ok' : 'down', redis, jobs: jobs ? 'ok' : 'down', migrations: 'ok' },
  };
}

async function redisCheck(svc: Services): Promise<'ok' | 'down' | 'disabled'> {
  if (!svc.redis) return 'disabled';
  try {
    await withDeadline(svc.redis.ping(), 2000);
    return 'ok';
  } catch {
    return 'down';
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('deadline')), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

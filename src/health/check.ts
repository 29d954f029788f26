import type { Services } from '../services';
import { VERSION } from '../version';

export type RedisHealth = 'ok' | 'degraded' | 'disabled';

/** GET /api/v1/health: database, job queue and Redis. The database being down is `down` (503). */
export async function checkHealth(svc: Services) {
  const [database, redis] = await Promise.all([svc.database.ping(2000), redisHealth(svc)]);
  const jobs = database && svc.jobsHealthy();
  const status = !database ? 'down' : !jobs || redis === 'degraded' ? 'degraded' : 'ok';
  return {
    status,
    version: VERSION,
    checks: { database: database ? 'ok' : 'down', redis, jobs: jobs ? 'ok' : 'down' },
  } as const;
}

async function redisHealth(svc: Services): Promise<RedisHealth> {
  if (!svc.redis) return 'disabled';
  try {
    await svc.redis.ping();
    return 'ok';
  } catch {
    return 'degraded';
  }
}

/**
 * The service's Prometheus metrics (docs/operations.md, Metrics): one registry per Services
 * instance (several run in one test process), names prefixed `amp_`. Domains count through
 * `svc.metrics`; what is read at scrape time (queue depths, pools) comes from `watch`.
 *
 * Labels are bounded: route templates (never raw paths), built-in module names (a tenant's own
 * modules are `custom`), error codes from the one code table, fixed outcome and pool names.
 * The request path looks its children up in nested maps (no string built per request).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { moduleLabel } from './labels';
import { CounterSeries, HistogramSeries, registerCounter, registerHistogram } from './series';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Statuses counted as refusals by admission (authentication, authorization, limits). */
const REFUSAL_STATUSES = new Set([401, 403, 429]);
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 30, 60, 300, 900];

export type PoolName = 'actions' | 'javascript';

/** What an execution's record says that the metrics count (module and action name it, source is the surface). */
interface RecordedExecution {
  module: string;
  action: string;
  status: string;
  source: string;
}

/** What is read when Prometheus scrapes (cheap and bounded: counters in memory, one small query). */
export interface ScrapeSources {
  /** Worker pools: leases held, capacity, tasks waiting for a lease. */
  pools(): { pool: PoolName; busy: number; capacity: number; waiting: number }[];
  /** Database connections by state (total, idle, waiting). */
  dbConnections(): Partial<Record<'total' | 'idle' | 'waiting', number>>;
  /** Jobs per queue by state, from pg-boss's cached counts. */
  queueDepths(): Promise<{ queue: string; ready: number; deferred: number; active: number }[]>;
}

export class Metrics {
  readonly registry = new Registry();

  private readonly refusals = new Counter({
    name: 'amp_admission_refusals_total',
    help: 'Requests refused by admission (401, 403, 429), by error code.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly reservations = new Counter({
    name: 'amp_quota_reservations_total',
    help: 'Execution quota reservations, by outcome (reserved or refused).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: 'amp_webhook_deliveries_total',
    help: 'Webhook deliveries finished, by outcome (succeeded, failed, cancelled).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly attempts = new Counter({
    name: 'amp_webhook_attempts_total',
    help: 'Webhook delivery attempts made, by result (success or failure).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly deliveryAttempts = new Histogram({
    name: 'amp_webhook_delivery_attempts',
    help: 'Attempts a finished webhook delivery took.',
    buckets: [1, 2, 3, 4, 5, 6, 8, 10],
    registers: [this.registry],
  });
  private readonly queueLag = new Histogram({
    name: 'amp_webhook_queue_lag_seconds',
    help: 'Time from when a webhook attempt was due to when it was loaded for sending.',
    buckets: LAG_BUCKETS,
    registers: [this.registry],
  });
  private readonly disabled = new Counter({
    name: 'amp_webhook_subscriptions_disabled_total',
    help: 'Webhook subscriptions disabled automatically after consecutive failed deliveries.',
    registers: [this.registry],
  });
  private readonly fairWait = new Histogram({
    name: 'amp_fair_queue_wait_seconds',
    help: 'Time an execution waited for a worker lease, by pool (refused waits included).',
    labelNames: ['pool'] as const,
    buckets: WAIT_BUCKETS,
    registers: [this.registry],
  });

  private sources: ScrapeSources | undefined;
  /** Requests by route, then method: their duration, and their count by status. */
  private readonly http = new Map<string, Map<string, { duration: HistogramSeries; byStatus: Map<number, CounterSeries> }>>();
  private readonly executions = new Map<string, CounterSeries>();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'amp_' });
    const byRoute = () => [...this.http.values()].flatMap((m) => [...m.values()]);
    registerCounter(this.registry, 'amp_http_requests_total', 'API requests answered, by route template, method and status.', () =>
      byRoute().flatMap((e) => [...e.byStatus.values()]),
    );
    registerHistogram(
      this.registry,
      'amp_http_request_duration_seconds',
      'Time from the request to the last byte of its answer, by route template and method.',
      LATENCY_BUCKETS,
      () => byRoute().map((e) => e.duration),
    );
    registerCounter(
      this.registry,
      'amp_executions_total',
      'Executions recorded, by module (built-in name or custom), outcome and surface.',
      () => this.executions.values(),
    );
    const pools = () => this.sources?.pools() ?? [];
    const poolGauge = (name: string, help: string, value: (p: ReturnType<ScrapeSources['pools']>[number]) => number) => {
      const gauge: Gauge<'pool'> = new Gauge({
        name,
        help,
        labelNames: ['pool'] as const,
        registers: [this.registry],
        collect: () => {
          for (const p of pools()) gauge.labels(p.pool).set(value(p));
        },
      });
    };
    poolGauge('amp_worker_pool_busy', 'Workers running a task now, by pool.', (p) => p.busy);
    poolGauge('amp_worker_pool_capacity', 'Workers in the pool, by pool.', (p) => p.capacity);
    poolGauge('amp_worker_pool_utilization', 'Busy workers over capacity (0 to 1), by pool.', (p) => p.busy / p.capacity);
    poolGauge('amp_fair_queue_waiting', 'Executions waiting for a worker lease now, by pool.', (p) => p.waiting);
    const connections: Gauge<'state'> = new Gauge({
      name: 'amp_db_pool_connections',
      help: 'Database connections by state (total, idle, waiting); the embedded database has one.',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect: () => {
        for (const [state, n] of Object.entries(this.sources?.dbConnections() ?? {})) connections.labels(state).set(n);
      },
    });
    const depth: Gauge<'queue' | 'state'> = new Gauge({
      name: 'amp_jobs_queue_depth',
      help: 'Jobs per queue by state (ready, deferred, active), from pg-boss (refreshed by its monitor).',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      collect: async () => {
        // A scrape the database cannot answer in time keeps the last counts.
        const depths = await this.sources?.queueDepths().catch(() => undefined);
        for (const d of depths ?? []) {
          depth.labels(d.queue, 'ready').set(d.ready);
          depth.labels(d.queue, 'deferred').set(d.deferred);
          depth.labels(d.queue, 'active').set(d.active);
        }
      },
    });
  }

  /** Where the scrape-time gauges read from (set once the services exist). */
  watch(sources: ScrapeSources): void {
    this.sources = sources;
  }

  /** The exposition text (METRICS_CONTENT_TYPE). */
  async render(): Promise<string> {
    return this.registry.metrics();
  }

  /** One answered API request: `route` is its template (null: outside every known route). */
  request(route: string | null, method: string | undefined, status: number, seconds: number): void {
    const routeKey = route ?? 'other';
    const methodKey = method && METHODS.has(method) ? method : 'other';
    let byMethod = this.http.get(routeKey);
    if (!byMethod) this.http.set(routeKey, (byMethod = new Map()));
    let entry = byMethod.get(methodKey);
    if (!entry) {
      const duration = new HistogramSeries({ route: routeKey, method: methodKey }, LATENCY_BUCKETS);
      byMethod.set(methodKey, (entry = { duration, byStatus: new Map() }));
    }
    let counter = entry.byStatus.get(status);
    if (!counter) entry.byStatus.set(status, (counter = new CounterSeries({ route: routeKey, method: methodKey, status: String(status) })));
    counter.value++;
    entry.duration.observe(seconds);
  }

  /** Settles with `recorded` (an execution's finished row), counting it. */
  executed<T extends { finished: RecordedExecution }>(recorded: Promise<T>): Promise<T> {
    return recorded.then((value) => {
      const { module, action, status, source } = value.finished;
      this.execution(moduleLabel(module, action), status === 'success' ? 'success' : 'failed', source);
      return value;
    });
  }

  /** A finished execution; `module` is already bounded (a built-in's name or `custom`). */
  execution(module: string, outcome: 'success' | 'failed', surface: string): void {
    const key = `${module}\n${outcome}\n${surface}`;
    let series = this.executions.get(key);
    if (!series) this.executions.set(key, (series = new CounterSeries({ module, outcome, surface })));
    series.value++;
  }

  /** Counts `err` when it is an admission refusal (an AppError answered 401, 403 or 429). */
  refused(err: unknown): void {
    const e = err as { status?: unknown; code?: unknown } | null;
    if (e && typeof e.code === 'string' && typeof e.status === 'number' && REFUSAL_STATUSES.has(e.status))
      this.refusals.labels(e.code).inc();
  }

  /** Settles with `reservation`, counting it as reserved, or refused when the quota refused it. */
  reserving<T>(reservation: Promise<T>): Promise<T> {
    return reservation.then(
      (value) => {
        this.reservations.labels('reserved').inc();
        return value;
      },
      (err: unknown) => {
        if ((err as { code?: unknown } | null)?.code === 'quota_exceeded') {
          this.reservations.labels('refused').inc();
          this.refused(err);
        }
        throw err;
      },
    );
  }

  /**
   * Webhook attempts made: each one's result, and the deliveries they finish (a success, or a
   * failure with no retry left in `retrySchedule`) with the attempts each took.
   */
  webhookAttempts(
    made: readonly { prepared: { attempt: number; final?: boolean }; outcome: { success: boolean } }[],
    retrySchedule: readonly number[],
  ): void {
    for (const { prepared, outcome } of made) {
      this.attempts.labels(outcome.success ? 'success' : 'failure').inc();
      if (!outcome.success && !prepared.final && retrySchedule[prepared.attempt] !== undefined) continue;
      this.deliveries.labels(outcome.success ? 'succeeded' : 'failed').inc();
      this.deliveryAttempts.observe(prepared.attempt);
    }
  }

  /** Deliveries stopped without an attempt (their subscription disabled or suspended, their event gone). */
  webhooksCancelled(n: number): void {
    if (n > 0) this.deliveries.labels('cancelled').inc(n);
  }

  /** An attempt loaded for sending that was due at `dueAt`. */
  webhookDue(dueAt: Date): void {
    this.queueLag.observe(Math.max(0, Date.now() - dueAt.getTime()) / 1000);
  }

  webhooksDisabled(n: number): void {
    if (n > 0) this.disabled.inc(n);
  }

  /** Settles with `admission` (a worker lease or none), recording how long it waited. */
  leased<T>(pool: PoolName, admission: Promise<T>): Promise<T> {
    const started = performance.now();
    return admission.then((lease) => {
      this.fairWait.labels(pool).observe((performance.now() - started) / 1000);
      return lease;
    });
  }
}

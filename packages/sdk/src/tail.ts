/**
 * `amp executions tail`: follows the tenant's executions as they are recorded, by polling the
 * executions list from the newest one seen (`since` is inclusive, so the ids already shown at
 * that instant are remembered and skipped). Works on every plan: it needs only `modules:read`.
 * An execution first seen `running` is shown once it has finished.
 */
import type { Amp } from './client.js';
import type { ListItem } from './types.js';

export type TailedExecution = ListItem<'/api/v1/executions'>;

export interface TailOptions {
  client: Amp;
  /** Filters of the executions list. */
  query?: { module?: string; status?: 'running' | 'success' | 'failed' };
  /** How long to wait between polls (default 2 s). */
  intervalMs?: number;
  /** Start from this instant (ISO 8601; default now): `--since` shows what happened since. */
  since?: string;
  signal?: AbortSignal;
  onExecution: (execution: TailedExecution) => void;
}

export async function tailExecutions(options: TailOptions): Promise<void> {
  try {
    await follow(options);
  } catch (err) {
    // Ctrl-C while a poll is on its way ends the tail; anything else is the caller's to report.
    if (!options.signal?.aborted) throw err;
  }
}

async function follow(options: TailOptions): Promise<void> {
  const { client, signal } = options;
  const intervalMs = options.intervalMs ?? 2000;
  let since = options.since ?? new Date().toISOString();
  let shownAtSince = new Set<string>();
  const running = new Map<string, TailedExecution>();
  while (!signal?.aborted) {
    for (const [id] of running) {
      const now = (await client.executions.get(id, { signal })) as unknown as TailedExecution;
      if (now.status !== 'running') {
        running.delete(id);
        options.onExecution(now);
      }
    }
    const fresh: TailedExecution[] = [];
    for await (const execution of client.executions.listAll({ ...options.query, since, limit: 100 }, { signal })) {
      if (!shownAtSince.has(execution.execution_id)) fresh.push(execution);
    }
    // The list is newest first; a terminal reads oldest first.
    for (const execution of fresh.reverse()) {
      if (execution.status === 'running' && options.query?.status !== 'running') running.set(execution.execution_id, execution);
      else options.onExecution(execution);
    }
    const newest = fresh.at(-1);
    if (newest) {
      if (newest.created_at !== since) shownAtSince = new Set();
      since = newest.created_at;
      for (const execution of fresh) if (execution.created_at === since) shownAtSince.add(execution.execution_id);
    }
    await pause(intervalMs, signal);
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

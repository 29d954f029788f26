/**
 * `amp executions tail`: follows the tenant's executions as they are recorded, by polling the
 * executions list from the newest one seen (`since` is inclusive, so the ids already shown at
 * that instant are remembered and skipped). Works on every plan: it needs only `modules:read`.
 * An execution first seen `running` is shown once it has finished.
 */
import type { Amp } from './client.js';
import { ConnectionError, RateLimitError, ServerError } from './errors.js';
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
  /**
   * A poll found no answer (a restart of the service, a network error, a 429 or 5xx after the
   * client's retries) after an earlier one had: the tail keeps going and tries again after the
   * interval (at least 2 s). Without an earlier answer the error ends the tail.
   */
  onInterrupted?: (info: { reason: string; retryInMs: number }) => void;
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
  const { signal } = options;
  const intervalMs = options.intervalMs ?? 2000;
  let since = options.since ?? new Date().toISOString();
  let shownAtSince = new Set<string>();
  const running = new Map<string, TailedExecution>();
  let answered = false;
  while (!signal?.aborted) {
    try {
      ({ since, shownAtSince } = await poll(options, since, shownAtSince, running));
      answered = true;
    } catch (err) {
      if (signal?.aborted || !answered || !(err instanceof ConnectionError || err instanceof ServerError || err instanceof RateLimitError))
        throw err;
      const retryInMs = Math.max(intervalMs, 2000);
      options.onInterrupted?.({ reason: err.message, retryInMs });
      await pause(retryInMs, signal);
      continue;
    }
    await pause(intervalMs, signal);
  }
}

/** One round: the running executions that finished, then the new ones since `since`. */
async function poll(options: TailOptions, since: string, shownAtSince: Set<string>, running: Map<string, TailedExecution>) {
  const { client, signal } = options;
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
  return { since, shownAtSince };
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

/**
 * Workflow throughput (`npm run bench`, the workflows section; docs/performance.md): RUNS runs of a
 * two-step workflow (text.slugify, then text.slugify of its output) started over REST by CLIENTS
 * clients at once, timed from the first start until every run has finished; next to it, in the
 * same run and on the same service, the baseline: the same steps' 2 x RUNS executions of
 * text.slugify called directly over REST by as many clients. The ratio is what the orchestration
 * between the steps (runs and steps recorded, jobs queued and taken, the run's end and its event)
 * leaves of the executions' own rate. Also each run's time from its start to its end (p50, p99).
 */
import { fmt, inParallel, percentile, printTable } from './common';
import type { Target } from './common';

const RUNS = Number(process.env.BENCH_WORKFLOW_RUNS ?? (process.env.BENCH_QUICK ? 200 : 500));
const CLIENTS = 20;

export interface WorkflowResult {
  backend: string;
  runs: number;
  clients: number;
  seconds: number;
  runsPerSecond: number;
  stepsPerSecond: number;
  baselineExecutionsPerSecond: number;
  ratio: number;
  runP50Ms: number;
  runP99Ms: number;
  failedRuns: number;
}

interface RunSummary {
  status: string;
  created_at: string;
  finished_at: string | null;
}
interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}
type Call = <T = unknown>(p: string, body?: unknown) => Promise<{ status: number; body: T; retryAfter: number }>;

function caller(service: Target, apiKey: string): Call {
  return async <T>(p: string, body?: unknown) => {
    const res = await fetch(service.url + p, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : undefined) as T,
      retryAfter: Number(res.headers.get('retry-after') ?? 1),
    };
  };
}

/** A call answered 2xx, sent again after `Retry-After` while it is 503 or 429 (what a client does). */
async function succeed<T = unknown>(call: Call, p: string, body: unknown): Promise<T> {
  for (;;) {
    const res = await call<T>(p, body);
    if (res.status < 300) return res.body;
    if (res.status !== 503 && res.status !== 429) throw new Error(`${p} answered ${res.status}: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, res.retryAfter * 1000));
  }
}

export async function benchWorkflows(
  backend: string,
  service: Target,
  apiKey: string,
  progress: (line: string) => void,
): Promise<WorkflowResult> {
  const call = caller(service, apiKey);
  const workflow = await succeed<{ id: string }>(call, '/api/v1/workflows', {
    name: 'bench two steps',
    steps: [
      { id: 'a', module: 'text', action: 'slugify', input: { text: 'Run {{input.n}}' } },
      { id: 'b', module: 'text', action: 'slugify', input: { text: '{{steps.a.output.slug}} done' }, depends_on: ['a'] },
    ],
  });
  const runsPath = `/api/v1/workflows/${workflow.id}/runs`;
  // Warm-up: a few runs to the end, so the first timed starts find the workers and caches ready.
  for (let n = 0; n < 5; n++) await succeed(call, runsPath, { input: { n } });
  await untilNoneActive(call, runsPath);

  const started = performance.now();
  await inParallel(RUNS, CLIENTS, (n) => succeed(call, runsPath, { input: { n } }));
  await untilNoneActive(call, runsPath);
  const seconds = (performance.now() - started) / 1000;
  const runs = await allRuns(call, runsPath);
  const timed = runs.slice(0, RUNS);
  const durations = timed
    .filter((r) => r.finished_at)
    .map((r) => Date.parse(r.finished_at!) - Date.parse(r.created_at))
    .sort((a, b) => a - b);
  const failedRuns = timed.filter((r) => r.status !== 'completed').length;

  const baselineStarted = performance.now();
  await inParallel(2 * RUNS, CLIENTS, (n) =>
    succeed(call, '/api/v1/modules/text/execute', { action: 'slugify', input: { text: `Run ${n}` } }),
  );
  const baselineSeconds = (performance.now() - baselineStarted) / 1000;

  const result: WorkflowResult = {
    backend,
    runs: RUNS,
    clients: CLIENTS,
    seconds,
    runsPerSecond: RUNS / seconds,
    stepsPerSecond: (2 * RUNS) / seconds,
    baselineExecutionsPerSecond: (2 * RUNS) / baselineSeconds,
    ratio: (2 * RUNS) / seconds / ((2 * RUNS) / baselineSeconds),
    runP50Ms: percentile(durations, 50),
    runP99Ms: percentile(durations, 99),
    failedRuns,
  };
  progress(
    `${backend}: ${RUNS} two-step runs in ${seconds.toFixed(1)} s (${fmt(result.stepsPerSecond)} steps/s; direct executions ${fmt(result.baselineExecutionsPerSecond)}/s)`,
  );
  return result;
}

/** Waits until the workflow has no queued or running run. */
async function untilNoneActive(call: Call, runsPath: string): Promise<void> {
  for (;;) {
    const [queued, running] = await Promise.all([
      call<Page<RunSummary>>(`${runsPath}?status=queued&limit=1`),
      call<Page<RunSummary>>(`${runsPath}?status=running&limit=1`),
    ]);
    if (queued.status !== 200 || running.status !== 200) throw new Error(`listing runs answered ${queued.status}, ${running.status}`);
    if (queued.body.data.length === 0 && running.body.data.length === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every run of the workflow, newest first. */
async function allRuns(call: Call, runsPath: string): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const res = await call<Page<RunSummary>>(`${runsPath}?limit=100${after}`);
    if (res.status !== 200) throw new Error(`listing runs answered ${res.status}`);
    runs.push(...res.body.data);
    cursor = res.body.has_more ? res.body.next_cursor : null;
  } while (cursor);
  return runs;
}

export function printWorkflowResults(results: WorkflowResult[]): void {
  if (results.length === 0) return;
  console.log(
    `Workflows: two-step runs started by ${CLIENTS} clients at once, to the last one finished; baseline: the same steps as direct executions\n`,
  );
  printTable(
    ['backend', 'runs', 'seconds', 'runs/s', 'steps/s', 'direct executions/s', 'ratio', 'run p50', 'run p99', 'failed'],
    results.map((r) => [
      r.backend,
      fmt(r.runs),
      r.seconds.toFixed(1),
      fmt(r.runsPerSecond),
      fmt(r.stepsPerSecond),
      fmt(r.baselineExecutionsPerSecond),
      `${(r.ratio * 100).toFixed(1)}%`,
      `${fmt(r.runP50Ms)} ms`,
      `${fmt(r.runP99Ms)} ms`,
      String(r.failedRuns),
    ]),
  );
  console.log('');
}

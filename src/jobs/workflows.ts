import type { Services } from '../services';
import { idlePollSeconds, pendingDueTimes, wakeAt } from './boss';
import { retryOrphanedSteps, WORKFLOW_STEP_QUEUE, type StepJob } from '../workflows/queue';
import { runStepJob } from '../workflows/scheduler';
import { admitWaitingRuns } from '../workflows/flow';
import { processEventInbox } from '../workflows/inbox';
import { fireDueSchedules } from '../workflows/triggers';
import { wakeDueSteps } from '../workflows/waits';

export { WORKFLOW_QUEUE_OPTIONS, WORKFLOW_STEP_QUEUE } from '../workflows/queue';

/** How often an instance takes the events waiting steps listen for (other instances' events among them). */
const EVENT_INBOX_INTERVAL_MS = 1000;
/**
 * How soon after this instance commits an event of a tenant and kind that had listeners lately
 * it takes the inbox: a waiting step or an `on` trigger reacts within this rather than within the
 * second, and a burst of commits shares one pass.
 */
const EVENT_INBOX_WAKE_MS = 20;
/** How long a tenant and kind the inbox took events of counts as listened to. */
const LISTENED_FOR_MS = 10 * 60_000;
/** How often an instance starts the runs flow control held back that may now start. */
const ADMISSION_INTERVAL_MS = 1000;
/** How often an instance starts the runs of schedule ticks that have passed. */
const SCHEDULE_INTERVAL_MS = 5000;
/** How often an instance wakes waiting steps that are due (their own delayed jobs normally do). */
const WAKE_SWEEP_INTERVAL_MS = 30_000;

const loops = new WeakMap<Services, () => Promise<void>>();

/**
 * The workflow step workers: each takes one step attempt job at a time (src/workflows/scheduler.ts),
 * several per instance so a run's parallel steps run in parallel. Any instance's workers take
 * any run's steps; the scheduler's conditional updates keep each attempt to one of them. Beside
 * them, four loops: the event inbox (waiting steps and `on` triggers, src/workflows/inbox.ts;
 * also 20 ms after this instance commits an event of a tenant and kind it took events of lately)
 * and the admission of runs flow control held back (src/workflows/flow.ts), every second; the
 * schedules (src/workflows/triggers.ts), every 5 s; a sweep of waiting steps' due wake-ups
 * (src/workflows/waits.ts), every half minute.
 */
export async function startWorkflowWorkers(svc: Services): Promise<void> {
  // Embedded: this process is the only one, so an active step job belonged to a process that died.
  if (svc.database.kind === 'pglite') await retryOrphanedSteps(svc);
  const workers = svc.database.kind === 'pglite' ? 4 : 8;
  await svc.boss.work<StepJob>(
    WORKFLOW_STEP_QUEUE,
    // A tenant (a job's group) gets at most half of the workers: another tenant's steps always find
    // one. This instance's commits wake idle workers for the steps they make due, now or later (the
    // post-commit hook below), so the poll is for other instances' and pg-boss's own (idlePollSeconds).
    { localConcurrency: workers, localGroupConcurrency: workers / 2, pollingIntervalSeconds: idlePollSeconds(svc.database), batchSize: 1 },
    async ([job]) => {
      if (job) await runStepJob(svc, job.data);
      // There may be more: the busy workers, this one among them, fetch again as soon as their job
      // ends (an empty fetch goes back to polling). pg-boss would otherwise wait out the rest of the
      // poll interval after a short job, which held a worker to two steps a second under a backlog.
      wakeStepWorkers(svc, 'busy');
    },
  );
  loops.set(svc, startWaitLoops(svc));
}

/**
 * Wakes this instance's step workers (pg-boss wakes a worker by its id only): `'busy'` the ones
 * running a job, which then fetch as soon as it ends; a number, that many of the idle ones, now.
 */
function wakeStepWorkers(svc: Services, which: 'busy' | number): void {
  let idle = which === 'busy' ? 0 : which;
  for (const worker of svc.boss.getWipData()) {
    if (worker.name !== WORKFLOW_STEP_QUEUE || worker.state === 'stopping') continue;
    if (worker.count > 0 ? which === 'busy' : idle-- > 0) svc.boss.notifyWorker(worker.id);
  }
}

/** Runs the loops one pass at a time (a pass never overlaps the previous one); returns their stop. */
function startWaitLoops(svc: Services): () => Promise<void> {
  let stopped = false;
  const inFlight = new Set<Promise<unknown>>();
  /** A loop running `pass` every `ms`; `now()` runs one at once, or right after the one running. */
  const every = (ms: number, pass: () => Promise<unknown>) => {
    let timer: NodeJS.Timeout | undefined;
    let running = false;
    let again = false;
    const tick = () => {
      clearTimeout(timer);
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      running = true;
      const passing = pass()
        .catch((err: unknown) => svc.logger.warn({ err: String(err) }, 'workflow loop pass failed; trying again'))
        .finally(() => {
          inFlight.delete(passing);
          running = false;
          if (stopped) return;
          if (again) {
            again = false;
            tick();
          } else timer = setTimeout(tick, ms).unref();
        });
      inFlight.add(passing);
    };
    timer = setTimeout(tick, ms).unref();
    return { now: tick, stop: () => clearTimeout(timer) };
  };
  // The tenants and kinds the inbox took events of lately: their next events wake it. Learned from
  // the inbox, so a commit costs a lookup per event and no query; the first event of a new
  // listener waits for the poll.
  const listened = new Map<string, number>();
  const inbox = every(EVENT_INBOX_INTERVAL_MS, async () => {
    const now = Date.now();
    for (const { tenantId, type } of await processEventInbox(svc)) listened.set(`${tenantId} ${type}`, now);
    for (const [key, at] of listened) if (now - at > LISTENED_FOR_MS) listened.delete(key);
  });
  let inboxWake: NodeJS.Timeout | undefined;
  const wakeInbox = () =>
    (inboxWake ??= setTimeout(() => {
      inboxWake = undefined;
      inbox.now();
    }, EVENT_INBOX_WAKE_MS).unref());
  const admission = every(ADMISSION_INTERVAL_MS, () => admitWaitingRuns(svc));
  // A run that ended may free a concurrency slot: admit at once rather than at the next pass.
  // Steps this instance's commits made due are taken now, or when they fall due (a retry's backoff,
  // a wait's end), rather than at the workers' next poll.
  const wakeUps = new Set<NodeJS.Timeout>();
  const wakeStepAt = (at: number) => {
    const timer = wakeAt(at, () => {
      wakeUps.delete(timer!);
      wakeStepWorkers(svc, 1);
    });
    if (timer) wakeUps.add(timer);
  };
  const unhook = svc.outbox.afterCommit((committed) => {
    if (committed.events.some((e) => e.type === 'workflow.completed' || e.type === 'workflow.failed')) admission.now();
    if (listened.size > 0 && committed.events.some((e) => listened.has(`${e.tenantId} ${e.type}`))) wakeInbox();
    const due = committed.dueJobs.get(WORKFLOW_STEP_QUEUE);
    if (due) wakeStepWorkers(svc, due);
    for (const { queue, at } of committed.laterJobs) if (queue === WORKFLOW_STEP_QUEUE) wakeStepAt(at);
  });
  // Embedded: the steps an earlier run of this process enqueued with a delay (a sleep, a retry)
  // fall due while no commit of this one said when.
  if (svc.database.kind === 'pglite')
    void pendingDueTimes(svc.boss, WORKFLOW_STEP_QUEUE)
      .then((times) => times.forEach(wakeStepAt))
      .catch((err: unknown) => svc.logger.warn({ err: String(err) }, 'workflow steps: pending wake-ups not read; the poll takes them'));
  const schedules = every(SCHEDULE_INTERVAL_MS, () => fireDueSchedules(svc));
  const sweep = every(WAKE_SWEEP_INTERVAL_MS, () => wakeDueSteps(svc));
  return async () => {
    stopped = true;
    unhook();
    clearTimeout(inboxWake);
    for (const timer of wakeUps) clearTimeout(timer);
    for (const loop of [inbox, admission, schedules, sweep]) loop.stop();
    await Promise.all(inFlight);
  };
}

/** Stops taking step jobs and waits for the attempts in flight (before the worker pool closes). */
export async function stopWorkflowWorkers(svc: Services): Promise<void> {
  await loops.get(svc)?.();
  loops.delete(svc);
  await svc.boss.offWork(WORKFLOW_STEP_QUEUE, { wait: true }).catch(() => {});
}

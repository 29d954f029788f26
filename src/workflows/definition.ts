import { findVisibleModule } from '../catalog/queries';
import { CronExpressionParser } from 'cron-parser';
import type { ActionStepDefinition, WorkflowEventTrigger, WorkflowSchedule, WorkflowStepDefinition } from '../db/schema';
import { EVENT_TYPES } from '../contract/events';
import { invalidRequest } from '../lib/errors';
import type { Services } from '../services';
import { CRON_MACROS, type WorkflowStepInput } from './schema';
import { compileExpression, parseReference, referencesIn, stepsInExpression } from './templates';

export const isActionStep = (s: WorkflowStepDefinition): s is ActionStepDefinition => s.kind === undefined || s.kind === 'action';

/** 400 `invalid_request` naming the offending step, with its place in `issues`. */
function refuse(index: number, field: string, message: string): never {
  throw invalidRequest(message, [{ path: `steps.${index}${field ? `.${field}` : ''}`, message }]);
}

/** The steps in an order where every step comes after its dependencies, or the cycle found. */
export function topologicalOrder(steps: Pick<WorkflowStepDefinition, 'id' | 'depends_on'>[]): { order: string[]; cycle?: string[] } {
  const deps = new Map(steps.map((s) => [s.id, s.depends_on ?? []]));
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  let cycle: string[] | undefined;
  const visit = (id: string, path: string[]): void => {
    if (cycle || state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') {
      cycle = [...path.slice(path.indexOf(id)), id];
      return;
    }
    state.set(id, 'visiting');
    for (const d of deps.get(id) ?? []) visit(d, [...path, id]);
    state.set(id, 'done');
    order.push(id);
  };
  for (const s of steps) visit(s.id, []);
  return { order, cycle };
}

/** Every step a step depends on, directly or through others. */
export function ancestorsOf(steps: Pick<WorkflowStepDefinition, 'id' | 'depends_on'>[]): Map<string, Set<string>> {
  const deps = new Map(steps.map((s) => [s.id, s.depends_on ?? []]));
  const memo = new Map<string, Set<string>>();
  const of = (id: string): Set<string> => {
    const known = memo.get(id);
    if (known) return known;
    const out = new Set<string>();
    memo.set(id, out);
    for (const d of deps.get(id) ?? []) {
      out.add(d);
      for (const a of of(d)) out.add(a);
    }
    return out;
  };
  for (const s of steps) of(s.id);
  return memo;
}

/**
 * Validates a definition on save: unique step ids, dependencies that exist, no cycle, modules
 * and actions the tenant can run, template references and JSONata expressions that parse and
 * read only the run input or steps that are ancestors (so their output exists when the step
 * runs). An expression must name every step it reads (from its syntax tree: `steps.<id>`,
 * `$lookup(steps, "<id>")`); one that reads `steps` otherwise is refused. Every refusal is a 400
 * naming the step. (At run time a step's context holds only its ancestors' outputs, whatever an
 * expression does: scheduler.ts runContext.)
 */
export async function validateSteps(svc: Services, tenantId: string, steps: WorkflowStepInput[]): Promise<WorkflowStepDefinition[]> {
  const index = new Map<string, number>();
  steps.forEach((s, i) => {
    if (index.has(s.id)) refuse(i, 'id', `Step '${s.id}' is defined more than once.`);
    index.set(s.id, i);
  });
  steps.forEach((s, i) => {
    (s.depends_on ?? []).forEach((d, j) => {
      if (!index.has(d)) refuse(i, `depends_on.${j}`, `Step '${s.id}' depends on unknown step '${d}'.`);
    });
  });
  const { cycle } = topologicalOrder(steps);
  if (cycle) refuse(index.get(cycle[0]!)!, 'depends_on', `Step '${cycle[0]}' is part of a dependency cycle: ${cycle.join(' -> ')}.`);

  for (const [i, s] of steps.entries()) {
    if (s.kind === 'wait_for_event' && !(EVENT_TYPES as readonly string[]).includes(s.event))
      refuse(i, 'event', `Step '${s.id}' waits for unknown event kind '${s.event}' (one of: ${EVENT_TYPES.join(', ')}).`);
    if (s.kind === 'sleep' && s.until !== undefined && referencesIn(s.until).length === 0 && Number.isNaN(Date.parse(s.until)))
      refuse(i, 'until', `Step '${s.id}': until is neither an ISO 8601 time nor a template giving one.`);
    if (s.kind !== undefined && s.kind !== 'action') continue;
    const found = await findVisibleModule(svc.db, tenantId, s.module, svc.moduleCache);
    if (!found) refuse(i, 'module', `Step '${s.id}' uses unknown module '${s.module}'.`);
    if (!found.actions.some((a) => a.name === s.action))
      refuse(i, 'action', `Step '${s.id}': module '${s.module}' has no action '${s.action}'.`);
  }

  const ancestors = ancestorsOf(steps);
  const checkStep = (i: number, field: string, s: WorkflowStepInput, target: string) => {
    if (!index.has(target)) refuse(i, field, `Step '${s.id}' references unknown step '${target}'.`);
    if (!ancestors.get(s.id)!.has(target)) {
      refuse(
        i,
        field,
        `Step '${s.id}' references step '${target}', which is not one of its dependencies (add it to depends_on, directly or through another step).`,
      );
    }
  };
  for (const [i, s] of steps.entries()) {
    for (const [field, template] of templatesOf(s)) {
      for (const body of referencesIn(template)) {
        const ref = parseReference(body);
        if (typeof ref === 'string') refuse(i, field, `Step '${s.id}': ${ref}`);
        if (ref.root === 'step') checkStep(i, field, s, ref.step);
      }
    }
    for (const [field, expression] of expressionsOf(s)) {
      if (expression === undefined) continue;
      try {
        compileExpression(expression);
      } catch (err) {
        refuse(i, field, `Step '${s.id}': ${(err as Error).message}`);
      }
      const reads = stepsInExpression(expression);
      for (const target of reads.ids) checkStep(i, field, s, target);
      if (reads.unnamed) {
        refuse(
          i,
          field,
          `Step '${s.id}' ${field}: reads steps without naming a step (e.g. steps.*, $keys(steps), $lookup(steps, $name)), which cannot be checked against its dependencies; name each step it reads: steps.<id> or $lookup(steps, "<id>").`,
        );
      }
    }
  }
  return steps.map((s) => ({ ...s, ...(s.depends_on ? { depends_on: [...new Set(s.depends_on)] } : {}) }));
}

/** A step's fields that are templates (`{{...}}` references), by name. */
function templatesOf(s: WorkflowStepInput): [string, unknown][] {
  switch (s.kind) {
    case 'sleep':
      return s.until === undefined ? [] : [['until', s.until]];
    case 'approval':
      return [['prompt', s.prompt]];
    case 'wait_for_event':
      return [];
    default:
      return [['input', s.input]];
  }
}

/** A step's fields that are JSONata expressions, by name. */
function expressionsOf(s: WorkflowStepInput): [string, string][] {
  const fields: [string, string | undefined][] = [['if', s.if]];
  if (s.kind === undefined || s.kind === 'action') fields.push(['map', s.map]);
  if (s.kind === 'wait_for_event') fields.push(['match', s.match]);
  return fields.filter((f): f is [string, string] => f[1] !== undefined);
}

const refuseField = (path: string, message: string): never => {
  throw invalidRequest(message, [{ path, message }]);
};

/** The schedule's first tick after `after`, or throws for a cron or zone that cannot be read. */
export function nextTick(schedule: Pick<WorkflowSchedule, 'cron' | 'timezone'>, after: Date): Date {
  return CronExpressionParser.parse(schedule.cron, { tz: schedule.timezone, currentDate: after }).next().toDate();
}

/** 400 naming `path` for a template that reads anything but `root` (`{{input.x}}`, `{{event.x}}`, `{{schedule.tick}}`). */
export function checkTemplate(path: string, template: unknown, root: 'input' | 'event' | 'schedule'): void {
  for (const body of referencesIn(template ?? {})) {
    const ref = parseReference(body, [root]);
    if (typeof ref === 'string') refuseField(path, ref);
  }
}

/** 400 naming the field for a schedule that cannot run: a cron that is not five fields or a macro, an unknown zone. */
export function validateSchedule(schedule: WorkflowSchedule): void {
  const fields = schedule.cron.split(/\s+/);
  if (!(CRON_MACROS as readonly string[]).includes(schedule.cron) && fields.length !== 5)
    refuseField(
      'schedule.cron',
      `The cron '${schedule.cron}' has ${fields.length} fields; it needs five (minute hour day-of-month month day-of-week) or a macro such as @daily.`,
    );
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: schedule.timezone });
  } catch {
    refuseField('schedule.timezone', `'${schedule.timezone}' is not an IANA time zone (e.g. Europe/Paris, America/New_York, UTC).`);
  }
  try {
    nextTick(schedule, new Date());
  } catch (err) {
    refuseField('schedule.cron', `The cron '${schedule.cron}' cannot be read: ${(err as Error).message}.`);
  }
  checkTemplate('schedule.input', schedule.input, 'schedule');
}

/** 400 naming the field for an event trigger on an unknown kind, a filter that does not parse, a bad template. */
export function validateEventTrigger(trigger: WorkflowEventTrigger): void {
  if (!(EVENT_TYPES as readonly string[]).includes(trigger.event))
    refuseField('on.event', `Unknown event kind '${trigger.event}' (one of: ${EVENT_TYPES.join(', ')}).`);
  if (trigger.filter !== undefined) {
    try {
      compileExpression(trigger.filter);
    } catch (err) {
      refuseField('on.filter', (err as Error).message);
    }
    if (stepsInExpression(trigger.filter).ids.length > 0)
      refuseField('on.filter', 'A trigger filter reads the event only: `event.data.x`.');
  }
  checkTemplate('on.input', trigger.input, 'event');
}

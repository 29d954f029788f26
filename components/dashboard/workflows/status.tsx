import { Badge } from '@/components/ui/badge';
import type { RouterOutputs } from '@/client/trpc/types';

type Outputs = RouterOutputs['workflows'];
export type WorkflowView = Outputs['get'];
export type RunSummary = Outputs['listRuns']['data'][number];
export type RunView = Outputs['getRun'];
export type RunStatus = RunSummary['status'];
export type StepStatus = RunView['steps'][number]['status'];

const RUN_TONES: Record<RunStatus, 'neutral' | 'success' | 'danger' | 'info' | 'warning'> = {
  queued: 'neutral',
  running: 'info',
  completed: 'success',
  failed: 'danger',
  cancelled: 'warning',
};

const STEP_TONES: Record<StepStatus, 'neutral' | 'success' | 'danger' | 'info' | 'warning'> = {
  pending: 'neutral',
  running: 'info',
  waiting: 'warning',
  succeeded: 'success',
  failed: 'danger',
  skipped: 'neutral',
  cancelled: 'warning',
};

const label = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A run's status as text and colour (the text carries the meaning). */
export function RunStatusBadge({ status }: { status: RunStatus }) {
  return <Badge tone={RUN_TONES[status]}>{label(status)}</Badge>;
}

export function StepStatusBadge({ status }: { status: StepStatus }) {
  return <Badge tone={STEP_TONES[status]}>{label(status)}</Badge>;
}

/** A run is still moving while queued or running: its page polls until it settles. */
export const isActive = (status: RunStatus) => status === 'queued' || status === 'running';

export const RUN_STATUS_FILTERS: RunStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];

/** What the workflow view holds beside its definition: the service sets these, a save never sends them. */
const NOT_DEFINITION = new Set(['id', 'version', 'next_run_at', 'created_at', 'updated_at']);

/**
 * The definition as the editor takes it: every field of the workflow but those the service sets,
 * less the empty ones (a null trigger or limit, no description, priority 0). A save replaces the
 * whole definition, so a field left out here would be removed by saving: name, steps, schedule,
 * on, concurrency, throttle, debounce, priority, and any the API adds, are all carried.
 */
export function definitionOf(w: WorkflowView): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(w).filter(([key, value]) => !NOT_DEFINITION.has(key) && value !== null && !(key === 'priority' && value === 0)),
  );
}

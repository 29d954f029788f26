'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Check, X } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import { statusOf } from '@/client/trpc/client';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Label } from '@/components/ui/label';
import { DeniedNote } from '@/components/dashboard/access';
import { errorMessage } from '@/components/dashboard/query-error';
import { formatDateTime, formatRelative } from '@/components/dashboard/format';
import { formatFromNow, formatWhen, type RunStep } from './words';

type ApprovalWait = Extract<NonNullable<RunStep['wait']>, { kind: 'approval' }>;
type Decision = NonNullable<RunStep['decision']>;

/** Who an approval names, in words: "admin or x@example.com"; nobody named means anyone who may run actions. */
function approversWords(approvers: string[]): string {
  if (approvers.length === 0) return 'Anyone in this workspace who may run actions can decide.';
  const names = approvers.length === 1 ? approvers[0] : `${approvers.slice(0, -1).join(', ')} or ${approvers.at(-1)}`;
  return `Only ${names} may decide.`;
}

/**
 * A waiting approval: its prompt, who may decide and until when, an optional comment, Approve
 * and Reject (which asks first). The API's answer replaces the run on the page; a refusal is
 * said beside the buttons (a 403 with the server's message naming the approvers), except a 409
 * (decided by someone else, or timed out): a toast says so and the run is read again.
 */
export function ApprovalPanel({
  workflowId,
  runId,
  step,
  wait,
  access,
  now,
}: {
  workflowId: string;
  runId: string;
  step: string;
  wait: ApprovalWait;
  access: { allowed: boolean | undefined; reason: string };
  now: number;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const approve = useMutation(trpc.workflows.approveStep.mutationOptions());
  const reject = useMutation(trpc.workflows.rejectStep.mutationOptions());
  // The field holds the comment (uncontrolled): words typed before the page hydrated are in the
  // field and not in React's state, and they are what the person means to send.
  const commentField = useRef<HTMLTextAreaElement>(null);
  const typedComment = () => commentField.current?.value.trim() ?? '';
  /** The comment as it was when the rejection's confirmation opened, which quotes it. */
  const [rejectComment, setRejectComment] = useState('');
  const [refusal, setRefusal] = useState<string>();
  const id = useId();
  const denied = access.allowed === false;
  const runKey = trpc.workflows.getRun.queryKey({ id: workflowId, run_id: runId });

  const decide = async (decision: 'approve' | 'reject') => {
    setRefusal(undefined);
    const comment = typedComment();
    const input = { id: workflowId, run_id: runId, step, ...(comment ? { comment } : {}) };
    try {
      const run = await (decision === 'approve' ? approve : reject).mutateAsync(input);
      queryClient.setQueryData(runKey, run);
      await queryClient.invalidateQueries({ queryKey: trpc.workflows.listRuns.queryKey() });
      toast.success(decision === 'approve' ? `Approved: the run goes on from ${step}` : `Rejected: the run stops at ${step}`);
    } catch (err) {
      if (statusOf(err) === 409) {
        // The panel goes away with the refreshed run (the step no longer waits), so a toast says why.
        toast.warning(`${step} no longer waits for a decision: someone else decided it, or it timed out. The run is up to date.`);
        await queryClient.invalidateQueries({ queryKey: runKey });
      } else {
        // A 403 `not_an_approver` names who may decide ("Only admin, x@y may decide step 'ok'."): said as the API says it.
        setRefusal(errorMessage(err));
      }
    }
  };

  const busy = approve.isPending || reject.isPending;
  return (
    <div
      className="grid min-w-0 gap-3 rounded-lg border border-amber-300 bg-amber-50 p-4 dark:border-amber-800 dark:bg-amber-950/60"
      data-testid={`approval-${step}`}
    >
      <p className="text-xs font-semibold tracking-wide text-amber-900 uppercase dark:text-amber-200">Your decision is needed</p>
      <p className="text-base font-semibold [overflow-wrap:anywhere] text-slate-900 dark:text-slate-50" data-testid="approval-prompt">
        {wait.prompt}
      </p>
      <p className="text-sm text-slate-700 dark:text-slate-300">
        {approversWords(wait.approvers)} Unanswered, it times out at {formatWhen(wait.timeout_at, now)} (
        {formatFromNow(wait.timeout_at, now)}) and the run fails.
      </p>
      <div className="grid min-w-0 gap-1.5">
        <Label htmlFor={`${id}-comment`}>Comment (optional)</Label>
        <textarea
          id={`${id}-comment`}
          ref={commentField}
          defaultValue=""
          rows={2}
          maxLength={2000}
          disabled={denied}
          aria-describedby={denied ? `${id}-denied` : undefined}
          className="w-full min-w-0 rounded-md border border-slate-400 bg-white p-2 text-sm text-slate-900 focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none disabled:opacity-60 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100"
        />
      </div>
      {refusal ? (
        <Alert variant="error" data-testid="approval-refusal">
          {refusal}
        </Alert>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button
          type="button"
          disabled={denied || busy}
          loading={approve.isPending}
          aria-describedby={denied ? `${id}-denied` : undefined}
          onClick={() => void decide('approve')}
        >
          <Check aria-hidden="true" className="size-4" />
          Approve
        </Button>
        {denied ? (
          <Button type="button" variant="destructive" disabled aria-describedby={`${id}-denied`}>
            <X aria-hidden="true" className="size-4" />
            Reject
          </Button>
        ) : (
          <ConfirmDialog
            trigger={
              <Button type="button" variant="destructive" disabled={busy} loading={reject.isPending}>
                <X aria-hidden="true" className="size-4" />
                Reject
              </Button>
            }
            title={`Reject ${step}?`}
            description={
              rejectComment
                ? `The step fails with your comment, “${rejectComment}”, and the run fails with it: the steps after it do not run.`
                : 'The step fails and the run fails with it: the steps after it do not run.'
            }
            onOpenChange={(open) => {
              if (open) setRejectComment(typedComment());
            }}
            confirmLabel="Reject"
            onConfirm={() => decide('reject')}
          />
        )}
      </div>
      {denied ? <DeniedNote id={`${id}-denied`} reason={access.reason} /> : null}
    </div>
  );
}

/** How an approval was decided: by whom, when, and the comment. */
export function DecisionNote({ decision, now }: { decision: Decision; now: number }) {
  const who = decision.by.type === 'api_key' ? 'an API key' : (decision.by.email ?? 'a member');
  const approved = decision.decision === 'approved';
  const at = Math.max(now, Date.parse(decision.decided_at)); // a decision is never in the future
  return (
    <div
      className={
        approved
          ? 'grid min-w-0 gap-1 rounded-lg border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/60 dark:text-emerald-100'
          : 'grid min-w-0 gap-1 rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/60 dark:text-red-100'
      }
      data-testid="approval-decision"
    >
      <p className="[overflow-wrap:anywhere]">
        <span className="font-semibold">{approved ? 'Approved' : 'Rejected'}</span> by {who}{' '}
        <span title={formatDateTime(decision.decided_at)}>
          at {formatWhen(decision.decided_at, at)} ({formatRelative(decision.decided_at, at)})
        </span>
      </p>
      {decision.comment ? (
        <blockquote className="border-l-2 border-current/40 pl-3 whitespace-pre-wrap [overflow-wrap:anywhere] italic">
          {decision.comment}
        </blockquote>
      ) : (
        <p className="opacity-80">No comment.</p>
      )}
    </div>
  );
}

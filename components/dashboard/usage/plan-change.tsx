'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Dialog, DialogClose, DialogContent, DialogTrigger } from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import { formatCount } from '@/components/dashboard/format';
import { errorMessage } from '@/components/dashboard/query-error';
import { DeniedNote, useAccess } from '@/components/dashboard/access';
import { monthlyFee, type PlanOffer } from './plan-comparison';
import type { RouterOutputs } from '@/client/trpc/types';

type Plan = 'free' | 'pro' | 'business' | 'enterprise';
type PlanChange = RouterOutputs['plans']['change'];
/** The plans a tenant may pick itself (`enterprise` is set by an operator: the API refuses it). */
const SELF_SERVE: Plan[] = ['free', 'pro', 'business'];
const RANK: Record<Plan, number> = { free: 0, pro: 1, business: 2, enterprise: 3 };

/**
 * PUT /api/v1/billing/plan from the dashboard: pick a plan, confirm (a downgrade says what it
 * suspends), and see what the API did: the terms now in force, and the keys and webhooks it
 * suspended or restored.
 */
export function PlanChange({ current, plans }: { current: Plan; plans?: PlanOffer[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const id = useId();
  const [picked, setTarget] = useState<Plan>();
  // The picked plan, unless it is the one now in force (e.g. right after changing to it).
  const target: Plan = picked && picked !== current ? picked : current === 'free' ? 'pro' : 'free';
  const [result, setResult] = useState<PlanChange>();
  const [upgradeOpen, setUpgradeOpen] = useState(false);
  // Plan changes are the owner's and billing members' (billing:write): others see the plan and why they can't.
  const access = useAccess('changePlan');
  const change = useMutation(
    trpc.plans.change.mutationOptions({
      onSuccess: async (data) => {
        setResult(data);
        toast.success(data.changed ? `You are now on the ${data.plan} plan.` : `You were already on the ${data.plan} plan.`);
        // Everything a plan moves: limits, usage terms, keys and webhooks (suspended or restored).
        await queryClient.invalidateQueries();
      },
    }),
  );

  if (current === 'enterprise') {
    return (
      <Card id="plan">
        <CardHeader>
          <CardTitle className="text-base">Plan</CardTitle>
          <CardDescription>Enterprise is a custom contract: an operator changes it for you.</CardDescription>
        </CardHeader>
      </Card>
    );
  }
  if (access.allowed === false) {
    return (
      <Card id="plan">
        <CardHeader>
          <CardTitle className="text-base">Change plan</CardTitle>
          <CardDescription>
            You are on <span className="font-semibold capitalize">{current}</span>.{' '}
            <a className="underline" href="#plans">
              Compare the plans
            </a>
            .
          </CardDescription>
        </CardHeader>
        <CardContent>
          <DeniedNote id={`${id}-denied`} reason={access.reason} />
        </CardContent>
      </Card>
    );
  }
  const downgrade = RANK[target] < RANK[current];
  const offer = (plan: Plan) => plans?.find((o) => o.plan === plan);
  /** "Pro · $29.00 / month" once the plan list is there; the name alone before. */
  const priced = (plan: Plan) => {
    const o = offer(plan);
    const name = plan.charAt(0).toUpperCase() + plan.slice(1);
    return o ? `${name} · ${monthlyFee(o)}` : name;
  };
  const targetFee = offer(target) ? ` It costs ${monthlyFee(offer(target)!)}.` : '';
  const run = () => change.mutateAsync({ plan: target });
  return (
    <Card id="plan">
      <CardHeader>
        <CardTitle className="text-base">Change plan</CardTitle>
        <CardDescription>
          You are on <span className="font-semibold capitalize">{current}</span>. A change takes effect at once; the monthly fee is prorated
          by whole UTC days on each plan (a day with a change counts at the dearer plan).{' '}
          <a className="underline" href="#plans">
            Compare the plans
          </a>
          .
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <div className="flex flex-wrap items-end gap-3">
          <div className="grid gap-2">
            <Label htmlFor={`${id}-plan`}>New plan</Label>
            <select
              id={`${id}-plan`}
              value={target}
              onChange={(e) => setTarget(e.target.value as Plan)}
              className="h-10 rounded-md border border-slate-400 bg-white px-3 text-sm shadow-sm focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none dark:border-slate-600 dark:bg-slate-900"
            >
              {SELF_SERVE.filter((p) => p !== current).map((p) => (
                <option key={p} value={p}>
                  {priced(p)}
                </option>
              ))}
            </select>
          </div>
          {downgrade ? (
            <ConfirmDialog
              trigger={<Button variant="secondary">Downgrade to {target}</Button>}
              title={`Downgrade to ${target}?`}
              description={
                <>
                  Your limits drop at once. Keys and webhook subscriptions beyond the {target} plan&apos;s allowance are kept but stop
                  working until you upgrade again
                  {target === 'free'
                    ? ': on Free only your primary key works (the others answer 403 plan_required) and no webhook is delivered'
                    : ''}
                  . Executions past the new quota are paused or billed as its terms say. Today (UTC) is still billed at{' '}
                  <span className="capitalize">{current}</span>; the {target} fee applies from tomorrow.{targetFee}
                </>
              }
              confirmLabel={`Downgrade to ${target}`}
              onConfirm={run}
            />
          ) : (
            <Dialog open={upgradeOpen} onOpenChange={setUpgradeOpen}>
              <DialogTrigger asChild>
                <Button>Upgrade to {target}</Button>
              </DialogTrigger>
              <DialogContent
                title={`Upgrade to ${target}?`}
                description={`The new limits, webhooks and extra keys apply at once; this cycle's fee is prorated by days on each plan, today at ${target}.${targetFee}`}
              >
                {change.isError ? <Alert variant="error">{errorMessage(change.error)}</Alert> : null}
                <div className="flex justify-end gap-2">
                  <DialogClose asChild>
                    <Button variant="secondary">Cancel</Button>
                  </DialogClose>
                  <Button
                    loading={change.isPending}
                    onClick={() =>
                      void run().then(
                        () => setUpgradeOpen(false),
                        () => {},
                      )
                    }
                  >
                    Upgrade to {target}
                  </Button>
                </div>
              </DialogContent>
            </Dialog>
          )}
        </div>
        {result ? <PlanChangeResult result={result} /> : null}
      </CardContent>
    </Card>
  );
}

function PlanChangeResult({ result }: { result: PlanChange }) {
  const suspended = result.suspended.keys.length + result.suspended.webhooks.length;
  const restored = result.restored.keys.length + result.restored.webhooks.length;
  return (
    <Alert variant="success" title={result.changed ? `Now on ${result.plan} (was ${result.previous_plan})` : `Already on ${result.plan}`}>
      <p>
        Terms in force: {result.terms.executions_per_month === null ? 'unlimited' : formatCount(result.terms.executions_per_month)}{' '}
        executions per month, {formatCount(result.terms.requests_per_minute)} requests per minute.
      </p>
      {suspended > 0 ? (
        <p>
          Suspended: {result.suspended.keys.length} key(s) {result.suspended.keys.join(', ')}; {result.suspended.webhooks.length} webhook(s){' '}
          {result.suspended.webhooks.join(', ')}.
        </p>
      ) : null}
      {restored > 0 ? (
        <p>
          Working again: {result.restored.keys.length} key(s), {result.restored.webhooks.length} webhook(s).
        </p>
      ) : null}
    </Alert>
  );
}

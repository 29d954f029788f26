'use client';

import { Badge } from '@/components/ui/badge';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { cn } from '@/components/ui/cn';
import { formatCount } from '@/components/dashboard/format';
import type { RouterOutputs } from '@/client/trpc/types';

export type PlanOffer = RouterOutputs['plans']['list']['data'][number];
type Plan = PlanOffer['plan'];

/** Names of the features some plans lack (the API's `features` keys); an unknown one shows its key. */
const FEATURE_LABELS: Record<string, string> = { webhooks: 'Webhooks', multiple_keys: 'Additional API keys' };

/** "$29.00 / month", or "Custom" for a contract: the API's USD strings as they are. */
export function monthlyFee(offer: PlanOffer): string {
  return offer.monthly_fee_usd === null ? 'Custom' : `$${offer.monthly_fee_usd} / month`;
}

function pastQuota(offer: PlanOffer): string {
  if (offer.overage === 'pause') return 'Paused until the next cycle';
  if (offer.overage === 'custom' || offer.overage_unit_usd === null) return 'Custom price';
  return `$${offer.overage_unit_usd} per execution`;
}

const unlimited = (n: number | null) => (n === null ? 'Unlimited' : formatCount(n));

/** A plan's name, and "Current plan" beside the current one (in words, not colour alone). */
function PlanName({ plan, current }: { plan: Plan; current?: Plan }) {
  return (
    <>
      <span className="capitalize">{plan}</span>
      {plan === current ? (
        <Badge tone="info" className="ml-2">
          Current plan
        </Badge>
      ) : null}
    </>
  );
}

/**
 * Every plan side by side (GET /api/v1/billing/plans): fee, quota, request rate, concurrency,
 * modules, what happens past the quota, and the features some plans lack. The current plan's
 * column (when given) is marked in text, not colour alone. Below 640 px each plan is a card of its
 * own, one under the other, instead of a table to scroll sideways.
 */
export function PlanComparison({ plans, current }: { plans: PlanOffer[]; current?: Plan }) {
  const featureNames = Object.keys(plans[0]?.features ?? {}) as (keyof PlanOffer['features'])[];
  const rows: [string, (o: PlanOffer) => string][] = [
    ['Monthly fee', monthlyFee],
    ['Executions per month', (o) => unlimited(o.executions_per_month)],
    ['Requests per minute', (o) => formatCount(o.requests_per_minute)],
    ['Concurrent executions', (o) => formatCount(o.concurrency)],
    ['Installed modules', (o) => unlimited(o.modules)],
    ['Past the monthly quota', pastQuota],
    ...featureNames.map((f): [string, (o: PlanOffer) => string] => [
      FEATURE_LABELS[f] ?? f.replace(/_/g, ' '),
      (o) => (o.features[f] ? 'Included' : 'Not included'),
    ]),
  ];
  const cell = (o: PlanOffer) => cn('px-3 py-2 align-top', o.plan === current && 'bg-indigo-50 dark:bg-indigo-950/60');
  return (
    // min-w-0: the table's width stays inside its own box, never widening the page.
    <Card id="plans" className="min-w-0">
      <CardHeader>
        <CardTitle className="text-base">Compare plans</CardTitle>
        <CardDescription>
          The list prices and limits of every plan, as the API applies them. A custom contract&apos;s own terms are shown above.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="grid gap-3 sm:hidden" data-testid="plan-cards" aria-label="Plans compared">
          {plans.map((o) => (
            <li
              key={o.plan}
              className={cn(
                'rounded-lg border border-slate-200 p-3 dark:border-slate-800',
                o.plan === current && 'border-indigo-300 bg-indigo-50 dark:border-indigo-800 dark:bg-indigo-950/60',
              )}
              aria-current={o.plan === current ? 'true' : undefined}
            >
              <h3 className="flex items-center text-sm font-semibold">
                <PlanName plan={o.plan} current={current} />
              </h3>
              <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
                {rows.map(([label, value]) => (
                  <div key={label} className="contents">
                    <dt className="text-slate-600 dark:text-slate-400">{label}</dt>
                    <dd className="text-right tabular-nums">{value(o)}</dd>
                  </div>
                ))}
              </dl>
            </li>
          ))}
        </ul>
        {/* Focusable: should the columns not fit (a narrow window beside the menu), a keyboard can scroll them. */}
        <div
          className="hidden overflow-x-auto rounded-lg border border-slate-200 sm:block dark:border-slate-800"
          tabIndex={0}
          role="region"
          aria-label="Plan comparison"
        >
          <table className="w-full text-left text-sm" data-testid="plan-comparison">
            <caption className="sr-only">Plans compared{current ? `; your current plan is ${current}` : ''}</caption>
            <thead className="bg-slate-50 dark:bg-slate-800/60">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium text-slate-600 dark:text-slate-400">
                  <span className="sr-only">Term</span>
                </th>
                {plans.map((o) => (
                  <th
                    key={o.plan}
                    scope="col"
                    className={cn(cell(o), 'font-semibold')}
                    aria-current={o.plan === current ? 'true' : undefined}
                  >
                    <PlanName plan={o.plan} current={current} />
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
              {rows.map(([label, value]) => (
                <tr key={label}>
                  <th scope="row" className="px-3 py-2 font-medium whitespace-nowrap">
                    {label}
                  </th>
                  {plans.map((o) => (
                    <td key={o.plan} className={cn(cell(o), 'tabular-nums')}>
                      {value(o)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </CardContent>
    </Card>
  );
}

'use client';

import { useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useTRPC } from '@/client/trpc/react';
import type { RouterOutputs } from '@/client/trpc/types';
import { Dialog, DialogContent } from '@/components/ui/dialog';
import { ForDevelopers } from '@/components/ui/for-developers';
import { SkeletonRows } from '@/components/ui/skeleton';
import { ChartFrame, ChartTable } from '@/components/dashboard/charts/chart-frame';
import { CHART_COLORS, axisTick, chartSurfaceProps, gridProps, legendProps, tooltipProps } from '@/components/dashboard/charts/chart-theme';
import { formatCount, formatDate } from '@/components/dashboard/format';
import { QueryError } from '@/components/dashboard/query-error';
import { refusalReason } from './policy';

type KeySummary = RouterOutputs['keys']['list']['data'][number];
type KeyUsage = RouterOutputs['keys']['usage'];

/** A key's current billing cycle: its runs per day by outcome, what they cost, and what its policy refused, by reason. */
export function KeyUsageDialog({
  keyRow,
  open,
  onOpenChange,
}: {
  keyRow: KeySummary;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        title={`Usage of “${keyRow.name}”`}
        description="This billing cycle, day by day (UTC): what the key ran and what its policy refused."
        className="max-w-3xl"
      >
        <KeyUsageBody keyId={keyRow.key_id} />
      </DialogContent>
    </Dialog>
  );
}

function KeyUsageBody({ keyId }: { keyId: string }) {
  const trpc = useTRPC();
  const usage = useQuery(trpc.keys.usage.queryOptions({ key_id: keyId }));
  if (usage.isPending) return <SkeletonRows rows={4} label="Loading the key's usage" />;
  if (usage.isError) return <QueryError error={usage.error} retry={() => void usage.refetch()} />;
  const u = usage.data;
  const refused = u.refusals.reduce((n, r) => n + r.count, 0);
  return (
    <div className="grid min-w-0 grid-cols-1 gap-5" data-testid="key-usage">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        <Stat label="Runs" value={formatCount(u.executions.total)} testId="key-usage-total" />
        <Stat label="Failed" value={formatCount(u.executions.failed)} />
        <Stat label="Spent" value={`$${u.spend_usd}`} />
        <Stat label="Refused" value={formatCount(refused)} testId="key-usage-refused" />
      </dl>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        {formatDate(u.cycle.start)} to {formatDate(new Date(Date.parse(u.cycle.end) - 1).toISOString())}. “Spent” counts runs the way the
        key&apos;s spend cap does.
      </p>
      <KeyDaysChart days={u.days} />
      <section aria-labelledby={`${keyId}-refusals`} className="grid gap-2">
        <h3 id={`${keyId}-refusals`} className="font-semibold">
          Refused, by reason
        </h3>
        {u.refusals.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">Nothing refused this cycle.</p>
        ) : (
          <ul className="grid gap-1 text-sm" data-testid="key-refusals">
            {u.refusals.map((r) => (
              <li
                key={r.reason}
                className="flex justify-between gap-3 rounded-md border border-slate-200 px-3 py-1.5 dark:border-slate-800"
              >
                <span>{refusalReason(r.reason)}</span>
                <span className="font-medium tabular-nums">{formatCount(r.count)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <ForDevelopers>
        <p>
          The same numbers: <code className="font-mono text-xs break-all">GET /api/v1/keys/{keyId}/usage?cycle=YYYY-MM</code> (scope
          keys:manage).
        </p>
      </ForDevelopers>
    </div>
  );
}

function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="rounded-lg border border-slate-200 px-3 py-2 dark:border-slate-800">
      <dt className="text-xs text-slate-600 dark:text-slate-400">{label}</dt>
      <dd className="text-lg font-semibold tabular-nums" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

/** Succeeded, failed and refused per UTC day, stacked. */
function KeyDaysChart({ days }: { days: KeyUsage['days'] }) {
  const data = days.map((d) => ({ ...d, day: d.date.slice(5) }));
  return (
    <ChartFrame
      title="Per day"
      description="Runs that succeeded or failed, and requests the policy refused, per UTC day this cycle."
      height={200}
      table={
        <ChartTable
          caption="Per day"
          headers={['Day', 'Succeeded', 'Failed', 'Refused']}
          rows={days.map((d) => [d.date, d.succeeded, d.failed, d.refused])}
        />
      }
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart {...chartSurfaceProps} data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid {...gridProps} vertical={false} />
          <XAxis dataKey="day" tick={axisTick} tickLine={false} axisLine={false} minTickGap={12} />
          <YAxis allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} />
          <Tooltip {...tooltipProps} />
          <Legend {...legendProps} />
          <Bar dataKey="succeeded" name="Succeeded" stackId="x" fill={CHART_COLORS.success} isAnimationActive={false} />
          <Bar dataKey="failed" name="Failed" stackId="x" fill={CHART_COLORS.failure} isAnimationActive={false} />
          <Bar dataKey="refused" name="Refused" stackId="x" fill={CHART_COLORS.accent} radius={[3, 3, 0, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

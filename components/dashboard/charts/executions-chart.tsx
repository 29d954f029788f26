'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ReactNode } from 'react';
import { ChartFrame, ChartTable } from './chart-frame';
import { MAX_BAR_SIZE } from './sparse';
import { CHART_COLORS, axisTick, chartSurfaceProps, gridProps, legendProps, tooltipProps } from './chart-theme';

export interface DailyExecutions {
  date: string;
  executions: number;
  failures: number;
}

/**
 * Executions per UTC day, succeeded and failed stacked (numbers straight from
 * `billing.usage.daily`: succeeded = executions − failures, the API's own split).
 */
export function ExecutionsPerDayChart({
  daily,
  title = 'Executions per day',
  testId,
  empty = 'No executions in this cycle yet. They show here, day by day, once your agents run actions.',
}: {
  daily: DailyExecutions[];
  title?: string;
  testId?: string;
  /** What a cycle without executions says instead of an empty plot. */
  empty?: ReactNode;
}) {
  const data = daily.map((d) => ({ day: d.date.slice(5), date: d.date, succeeded: d.executions - d.failures, failed: d.failures }));
  const total = daily.reduce((n, d) => n + d.executions, 0);
  return (
    <div data-testid={testId} data-total={total}>
      <ChartFrame
        title={title}
        description={`Succeeded and failed executions per UTC day this cycle: ${total} in all.`}
        empty={total === 0 ? empty : undefined}
        table={
          <ChartTable caption={title} headers={['Day', 'Succeeded', 'Failed']} rows={data.map((d) => [d.date, d.succeeded, d.failed])} />
        }
      >
        <ResponsiveContainer width="100%" height="100%">
          <BarChart {...chartSurfaceProps} data={data} maxBarSize={MAX_BAR_SIZE} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid {...gridProps} vertical={false} />
            <XAxis dataKey="day" tick={axisTick} tickLine={false} axisLine={false} minTickGap={12} />
            <YAxis allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} />
            <Tooltip {...tooltipProps} />
            <Legend {...legendProps} />
            <Bar dataKey="succeeded" name="Succeeded" stackId="x" fill={CHART_COLORS.success} isAnimationActive={false} />
            <Bar dataKey="failed" name="Failed" stackId="x" fill={CHART_COLORS.failure} radius={[3, 3, 0, 0]} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </ChartFrame>
    </div>
  );
}

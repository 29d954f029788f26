'use client';

import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartFrame, ChartTable } from '@/components/dashboard/charts/chart-frame';
import { CHART_COLORS, axisTick, chartSurfaceProps, gridProps, legendProps, tooltipProps } from '@/components/dashboard/charts/chart-theme';
import { countValues, lineDot, MAX_BAR_SIZE } from '@/components/dashboard/charts/sparse';
import { formatMs } from '@/components/dashboard/format';
import { formatRate } from './webhook-form';
import type { RouterOutputs } from '@/client/trpc/types';

export type WebhookSeries = RouterOutputs['webhooks']['stats'];

/** A bucket's label: "14:00" for hours, "11-24" for days (UTC, as the API buckets them). */
function bucketLabel(start: string, bucket: WebhookSeries['bucket']): string {
  return bucket === 'hour' ? `${start.slice(11, 16)}` : start.slice(5, 10);
}

/** Deliveries per bucket (succeeded and failed stacked) with the success rate as a line on its own axis. */
export function DeliveryRateChart({ series }: { series: WebhookSeries }) {
  const data = series.points.map((p) => ({
    label: bucketLabel(p.start, series.bucket),
    start: p.start,
    succeeded: p.succeeded_deliveries,
    failed: p.failed_deliveries,
    rate: p.success_rate === null ? null : Math.round(p.success_rate * 10_000) / 100,
  }));
  const succeeded = series.points.reduce((n, p) => n + p.succeeded_deliveries, 0);
  const failed = series.points.reduce((n, p) => n + p.failed_deliveries, 0);
  const unit = series.bucket === 'hour' ? 'UTC hour' : 'UTC day';
  // One or a few buckets with a rate: their points are drawn large (a lone value has no line to show it).
  const rateDot = lineDot(countValues(data.map((d) => d.rate)));
  return (
    <div data-testid="webhook-rate-chart" data-succeeded={succeeded} data-failed={failed}>
      <ChartFrame
        title="Deliveries and success rate"
        description={`Finished deliveries per ${unit}: ${succeeded} succeeded, ${failed} failed in this range.`}
        empty={succeeded + failed === 0 ? 'No delivery finished in this range. Choose a longer range, or send a test event.' : undefined}
        table={
          <ChartTable
            caption={`Deliveries per ${unit}`}
            headers={['Start (UTC)', 'Succeeded', 'Failed', 'Success rate']}
            rows={series.points.map((p) => [
              p.start.slice(0, 16).replace('T', ' '),
              p.succeeded_deliveries,
              p.failed_deliveries,
              formatRate(p.success_rate),
            ])}
          />
        }
      >
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart {...chartSurfaceProps} data={data} maxBarSize={MAX_BAR_SIZE} margin={{ top: 8, right: 0, bottom: 0, left: -16 }}>
            <CartesianGrid {...gridProps} vertical={false} />
            <XAxis dataKey="label" tick={axisTick} tickLine={false} axisLine={false} minTickGap={12} />
            <YAxis yAxisId="n" allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} />
            <YAxis
              yAxisId="rate"
              orientation="right"
              domain={[0, 100]}
              unit="%"
              tick={axisTick}
              tickLine={false}
              axisLine={false}
              width={44}
            />
            <Tooltip {...tooltipProps} />
            <Legend {...legendProps} />
            <Bar yAxisId="n" dataKey="succeeded" name="Succeeded" stackId="d" fill={CHART_COLORS.success} isAnimationActive={false} />
            <Bar
              yAxisId="n"
              dataKey="failed"
              name="Failed"
              stackId="d"
              fill={CHART_COLORS.failure}
              radius={[3, 3, 0, 0]}
              isAnimationActive={false}
            />
            <Line
              yAxisId="rate"
              dataKey="rate"
              name="Success rate (%)"
              stroke={CHART_COLORS.neutral}
              strokeWidth={2}
              dot={rateDot}
              connectNulls
              isAnimationActive={false}
            />
          </ComposedChart>
        </ResponsiveContainer>
      </ChartFrame>
    </div>
  );
}

/** Mean and 95th-percentile latency of the attempts the receiver answered, per bucket. */
export function LatencyChart({ series }: { series: WebhookSeries }) {
  const data = series.points.map((p) => ({ label: bucketLabel(p.start, series.bucket), avg: p.avg_latency_ms, p95: p.p95_latency_ms }));
  const unit = series.bucket === 'hour' ? 'UTC hour' : 'UTC day';
  const answered = series.points.reduce((n, p) => n + p.answered_attempts, 0);
  const avgDot = lineDot(countValues(data.map((d) => d.avg)));
  const p95Dot = lineDot(countValues(data.map((d) => d.p95)));
  return (
    <div data-testid="webhook-latency-chart">
      <ChartFrame
        title="Receiver latency"
        description={`Mean and 95th percentile per ${unit} over the ${answered} attempts your receiver answered in this range.`}
        empty={answered === 0 ? 'Your receiver answered no attempt in this range, so there is no latency to show.' : undefined}
        table={
          <ChartTable
            caption={`Latency per ${unit}`}
            headers={['Start (UTC)', 'Answered attempts', 'Mean', 'p95']}
            rows={series.points.map((p) => [
              p.start.slice(0, 16).replace('T', ' '),
              p.answered_attempts,
              formatMs(p.avg_latency_ms),
              formatMs(p.p95_latency_ms),
            ])}
          />
        }
      >
        <ResponsiveContainer width="100%" height="100%">
          <LineChart {...chartSurfaceProps} data={data} margin={{ top: 8, right: 8, bottom: 0, left: -8 }}>
            <CartesianGrid {...gridProps} vertical={false} />
            <XAxis dataKey="label" tick={axisTick} tickLine={false} axisLine={false} minTickGap={12} />
            <YAxis unit=" ms" allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} width={60} />
            <Tooltip {...tooltipProps} />
            <Legend {...legendProps} />
            <Line
              dataKey="avg"
              name="Mean (ms)"
              stroke={CHART_COLORS.neutral}
              strokeWidth={2}
              dot={avgDot}
              connectNulls
              isAnimationActive={false}
            />
            <Line
              dataKey="p95"
              name="p95 (ms)"
              stroke={CHART_COLORS.accent}
              strokeWidth={2}
              dot={p95Dot}
              connectNulls
              isAnimationActive={false}
            />
          </LineChart>
        </ResponsiveContainer>
      </ChartFrame>
    </div>
  );
}

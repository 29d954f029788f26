'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartFrame, ChartTable } from '@/components/dashboard/charts/chart-frame';
import { CHART_COLORS, axisTick, chartSurfaceProps, gridProps, legendProps, tooltipProps } from '@/components/dashboard/charts/chart-theme';

/** Executions per module in the cycle (`billing.usage.by_module`), succeeded and failed stacked. */
export function ModuleChart({ byModule }: { byModule: { module: string; executions: number; failures: number }[] }) {
  const data = byModule.slice(0, 12).map((m) => ({ module: m.module, succeeded: m.executions - m.failures, failed: m.failures }));
  const height = Math.max(120, data.length * 36 + 48);
  return (
    <ChartFrame
      title="Executions per module"
      description={
        byModule.length > 12
          ? `The 12 most executed of ${byModule.length} modules this cycle.`
          : 'Every module executed this cycle, most executed first.'
      }
      height={height}
      table={
        <ChartTable
          caption="Executions per module"
          headers={['Module', 'Succeeded', 'Failed']}
          rows={byModule.map((m) => [m.module, m.executions - m.failures, m.failures])}
        />
      }
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart {...chartSurfaceProps} data={data} layout="vertical" margin={{ top: 4, right: 12, bottom: 0, left: 8 }}>
          <CartesianGrid {...gridProps} horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} />
          <YAxis type="category" dataKey="module" width={90} tick={axisTick} tickLine={false} axisLine={false} />
          <Tooltip {...tooltipProps} />
          <Legend {...legendProps} />
          <Bar dataKey="succeeded" name="Succeeded" stackId="x" fill={CHART_COLORS.success} isAnimationActive={false} />
          <Bar dataKey="failed" name="Failed" stackId="x" fill={CHART_COLORS.failure} radius={[0, 3, 3, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}

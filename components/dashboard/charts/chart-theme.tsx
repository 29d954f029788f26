/**
 * What every dashboard chart shares so it reads in both colour schemes: series colours legible on
 * white and on slate-900 (dark mode), axis ticks and legend text in the surrounding text colour,
 * and a tooltip drawn from the --chart-tooltip-* variables of app/globals.css (light and dark).
 */
import type { CSSProperties, ReactNode } from 'react';

/** Mid-lightness emerald, red, indigo and amber: visible on white and on slate-900. */
export const CHART_COLORS = { success: '#10b981', failure: '#ef4444', neutral: '#6366f1', accent: '#f59e0b', grid: '#94a3b8' };

/**
 * The chart's own surface stays out of the keyboard's way: the frame around it hides it from
 * assistive technology and offers its numbers as a table. Without Recharts' keyboard layer, and
 * with tabIndex -1 spelled out (Recharts renders the surface with tabIndex 0 until its store has
 * taken accessibilityLayer: false, and Tab reached it).
 */
export const chartSurfaceProps = { accessibilityLayer: false, tabIndex: -1 };

/** Axis ticks in the text colour around the chart (slate-900 on light, slate-100 on dark). */
export const axisTick = { fontSize: 11, fill: 'currentColor' };

/** The grid: dashed slate at low opacity, quiet on either background. */
export const gridProps = { strokeDasharray: '3 3', stroke: CHART_COLORS.grid, strokeOpacity: 0.3 };

const tooltipContent: CSSProperties = {
  borderRadius: 8,
  fontSize: 12,
  backgroundColor: 'var(--chart-tooltip-bg)',
  borderColor: 'var(--chart-tooltip-border)',
  color: 'var(--chart-tooltip-fg)',
};

/** Props for Recharts' <Tooltip>: themed box, label in the box's text colour, a faint cursor. */
export const tooltipProps = {
  contentStyle: tooltipContent,
  labelStyle: { color: 'var(--chart-tooltip-fg)', fontWeight: 600 },
  cursor: { fill: CHART_COLORS.grid, fillOpacity: 0.15 },
};

/** Legend entries in the surrounding text colour (Recharts colours them like their series, too faint on white). */
export const legendProps = {
  wrapperStyle: { fontSize: 12 },
  formatter: (value: ReactNode) => <span className="text-slate-700 dark:text-slate-300">{value}</span>,
};

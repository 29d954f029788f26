'use client';

import { useId, useState, type ReactNode } from 'react';
import { Button } from '@/components/ui/button';

/**
 * A chart with an accessible name and description, and its numbers as a table (or, with nothing
 * to draw, `empty`: words in place of an empty plot): the table is
 * visually hidden (read by screen readers) until "Show data" reveals it for everyone, in a
 * named region that scrolls and takes keyboard focus (arrow keys scroll it). The table comes right
 * after its button, above the chart, so Tab goes from one to the other on the page as it reads.
 */
export function ChartFrame({
  title,
  description,
  table,
  children,
  height = 240,
  empty,
}: {
  title: string;
  description: string;
  /** The same numbers as the chart, as a table (caption included). */
  table: ReactNode;
  children: ReactNode;
  height?: number;
  /** Nothing to draw (no value in the range): these words stand in place of the chart and its data. */
  empty?: ReactNode;
}) {
  const id = useId();
  const [showData, setShowData] = useState(false);
  if (empty)
    return (
      <figure className="grid gap-3" aria-labelledby={`${id}-title`} aria-describedby={`${id}-desc`}>
        <ChartCaption id={id} title={title} description={description} />
        <div
          data-testid="chart-empty"
          className="grid min-h-32 place-items-center rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-700 dark:border-slate-700 dark:text-slate-300"
        >
          <div>{empty}</div>
        </div>
      </figure>
    );
  return (
    <figure className="grid gap-3" aria-labelledby={`${id}-title`} aria-describedby={`${id}-desc`}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <ChartCaption id={id} title={title} description={description} />
        <Button
          type="button"
          size="sm"
          variant="ghost"
          aria-expanded={showData}
          aria-controls={showData ? `${id}-data` : undefined}
          onClick={() => setShowData((v) => !v)}
        >
          {showData ? 'Hide data' : 'Show data'}
        </Button>
      </div>
      {showData ? (
        // A scrolling box: focusable and named, so a keyboard can scroll it and a screen reader says what it holds.
        <div
          id={`${id}-data`}
          role="region"
          aria-label={`${title}: data`}
          tabIndex={0}
          className="max-h-80 overflow-auto rounded-lg border border-slate-200 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none dark:border-slate-800"
        >
          {table}
        </div>
      ) : (
        <div className="sr-only">{table}</div>
      )}
      <div aria-hidden="true" style={{ height }} className="w-full min-w-0">
        {children}
      </div>
    </figure>
  );
}

/** A plain table of chart data (header row + rows of cells). */
export function ChartTable({ caption, headers, rows }: { caption: string; headers: string[]; rows: (string | number)[][] }) {
  return (
    <table className="w-full text-left text-sm">
      <caption className="sr-only">{caption}</caption>
      <thead className="bg-slate-50 text-xs text-slate-600 uppercase dark:bg-slate-950 dark:text-slate-400">
        <tr>
          {headers.map((h) => (
            <th key={h} scope="col" className="px-3 py-2">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
        {rows.map((row) => (
          <tr key={String(row[0])}>
            {row.map((cell, i) =>
              i === 0 ? (
                <th key={i} scope="row" className="px-3 py-1.5 font-normal">
                  {cell}
                </th>
              ) : (
                <td key={i} className="px-3 py-1.5 tabular-nums">
                  {cell}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The chart's name and description, which the figure is labelled and described by. */
function ChartCaption({ id, title, description }: { id: string; title: string; description: string }) {
  return (
    <div>
      <figcaption id={`${id}-title`} className="font-semibold">
        {title}
      </figcaption>
      <p id={`${id}-desc`} className="text-sm text-slate-600 dark:text-slate-400">
        {description}
      </p>
    </div>
  );
}

'use client';

import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import { Fragment, useState, type ReactNode } from 'react';
import { cn } from './cn';

/** A column's name as a card row's label: its header when that is text. */
function columnLabel<T>(column: ColumnDef<T, unknown>): string | undefined {
  return typeof column.header === 'string' && column.header.trim() ? column.header : undefined;
}

/**
 * A table (TanStack Table) with sortable headers (buttons with aria-sort on the header cell) and
 * an empty state in place of the body. Below 640 px every row is a card: each cell on its own
 * line under its column's name, so no column (nor a row's actions) is pushed out of view.
 * `detail`: what a row shows under it across every column (e.g. a group's items when its
 * disclosure is open), or null for nothing.
 */
export function DataTable<T>({
  columns,
  data,
  caption,
  empty,
  getRowId,
  detail,
  className,
}: {
  columns: ColumnDef<T, unknown>[];
  data: T[];
  /** Read by screen readers; visually hidden. */
  caption: string;
  empty?: ReactNode;
  getRowId?: (row: T) => string;
  detail?: (row: T) => ReactNode;
  className?: string;
}) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const table = useReactTable({
    data,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    ...(getRowId ? { getRowId: (row: T) => getRowId(row) } : {}),
  });
  if (data.length === 0 && empty) return <>{empty}</>;
  return (
    // `relative`: visually hidden (absolutely positioned) header text stays inside the scrolling box
    // instead of widening the page at 375 px.
    <div
      className={cn(
        'relative overflow-x-auto rounded-xl border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900',
        className,
      )}
    >
      <table className="w-full text-left text-sm max-sm:block">
        <caption className="sr-only">{caption}</caption>
        <thead className="max-sm:sr-only border-b border-slate-200 bg-slate-50 text-xs font-medium tracking-wide text-slate-600 uppercase dark:border-slate-800 dark:bg-slate-950 dark:text-slate-400">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                const label = header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext());
                return (
                  <th
                    key={header.id}
                    scope="col"
                    className="px-4 py-2.5 whitespace-nowrap"
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                  >
                    {header.column.getCanSort() ? (
                      <button
                        type="button"
                        onClick={header.column.getToggleSortingHandler()}
                        className="inline-flex items-center gap-1 rounded-sm uppercase hover:text-slate-900 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none dark:hover:text-slate-100"
                      >
                        {label}
                        <span aria-hidden="true">{sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}</span>
                      </button>
                    ) : (
                      label
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody className="divide-y divide-slate-200 max-sm:block dark:divide-slate-800">
          {table.getRowModel().rows.map((row) => {
            const below = detail?.(row.original);
            return (
              <Fragment key={row.id}>
                <tr className="align-top hover:bg-slate-50 max-sm:block max-sm:py-2 dark:hover:bg-slate-800/50">
                  {row.getVisibleCells().map((cell) => {
                    const label = columnLabel(cell.column.columnDef);
                    return (
                      <td
                        key={cell.id}
                        className="px-4 py-2.5 max-sm:grid max-sm:grid-cols-[6.5rem_minmax(0,1fr)] max-sm:items-baseline max-sm:gap-x-3 max-sm:py-1 max-sm:break-words"
                      >
                        {label ? (
                          <span aria-hidden="true" className="text-xs font-medium text-slate-600 sm:hidden dark:text-slate-400">
                            {label}
                          </span>
                        ) : (
                          <span aria-hidden="true" className="sm:hidden" />
                        )}
                        <div className="min-w-0 max-sm:[&_*]:whitespace-normal">
                          {flexRender(cell.column.columnDef.cell, cell.getContext())}
                        </div>
                      </td>
                    );
                  })}
                </tr>
                {below ? (
                  <tr className="max-sm:block">
                    <td colSpan={row.getVisibleCells().length} className="bg-slate-50 px-4 py-3 max-sm:block dark:bg-slate-950">
                      {below}
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

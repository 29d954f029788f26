'use client';

import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type Column,
  type ColumnDef,
  type RowData,
  type SortingState,
} from '@tanstack/react-table';
import { Fragment, useState, type ReactNode } from 'react';
import { cn } from './cn';

declare module '@tanstack/react-table' {
  // Type parameters must match TanStack's own declaration of ColumnMeta.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface ColumnMeta<TData extends RowData, TValue> {
    /**
     * How the column's cell shows on a card (below 640 px): `title`, the card's first line without
     * a label (the row's name or id; by default the first column); `actions`, the card's last line
     * without a label (the row's buttons; by default the column with the id `actions`); `field`, a
     * line with the column's name as its label beside it (every other column); `wide`, the label
     * above and the cell across the card's width (long text, such as a response body).
     */
    card?: 'title' | 'field' | 'wide' | 'actions';
    /** The cell names its row for screen readers (a `th` with `scope="row"`), e.g. a term in a small fixed table. */
    rowHeader?: boolean;
  }
}

type CardPart = 'title' | 'field' | 'wide' | 'actions';

/** The part a column plays on a card: its own `meta.card`, else the first column is the title and `actions` the actions. */
function cardPart<T>(column: Column<T, unknown>, index: number): CardPart {
  return column.columnDef.meta?.card ?? (column.id === 'actions' ? 'actions' : index === 0 ? 'title' : 'field');
}

/** A column's name as a card line's label: its header when that is text. */
function columnLabel<T>(column: ColumnDef<T, unknown>): string | undefined {
  return typeof column.header === 'string' && column.header.trim() ? column.header : undefined;
}

/**
 * A table (TanStack Table) with sortable headers (buttons with aria-sort on the header cell) and
 * an empty state in place of the body. Below 640 px every row is a card, so nothing is pushed out
 * of view sideways: the row's name or id first, then each other cell on its own line under its
 * column's name (also in `data-label`), then the row's actions. The markup stays a table and each
 * element says its role, since some screen readers drop a table's semantics once CSS changes how
 * it is displayed; the column headers remain there for them, visually hidden. From 640 px the
 * actions column sticks to the right edge, in view while a wide table scrolls.
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
  testId,
}: {
  columns: ColumnDef<T, unknown>[];
  data: T[];
  /** Read by screen readers; visually hidden. */
  caption: string;
  empty?: ReactNode;
  getRowId?: (row: T) => string;
  detail?: (row: T) => ReactNode;
  className?: string;
  /** `data-testid` of the table element. */
  testId?: string;
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
  const parts = new Map(table.getVisibleLeafColumns().map((column, i) => [column.id, cardPart(column, i)]));
  return (
    // `relative`: visually hidden (absolutely positioned) header text stays inside the scrolling box
    // instead of widening the page at 375 px.
    <div
      className={cn(
        'relative overflow-x-auto rounded-xl border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900',
        className,
      )}
    >
      <table role="table" className="w-full text-left text-sm max-sm:block" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead
          role="rowgroup"
          className="border-b border-slate-200 bg-slate-50 text-xs font-medium tracking-wide text-slate-600 uppercase max-sm:sr-only dark:border-slate-800 dark:bg-slate-950 dark:text-slate-400"
        >
          {table.getHeaderGroups().map((group) => (
            <tr role="row" key={group.id}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                const label = header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext());
                return (
                  <th
                    key={header.id}
                    role="columnheader"
                    scope="col"
                    className={cn(
                      'px-4 py-2.5 whitespace-nowrap',
                      parts.get(header.column.id) === 'actions' && 'sticky right-0 bg-slate-50 dark:bg-slate-950',
                    )}
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
        <tbody role="rowgroup" className="divide-y divide-slate-200 max-sm:block dark:divide-slate-800">
          {table.getRowModel().rows.map((row) => {
            const below = detail?.(row.original);
            return (
              <Fragment key={row.id}>
                <tr
                  role="row"
                  className="group align-top hover:bg-slate-50 max-sm:flex max-sm:flex-col max-sm:py-2 dark:hover:bg-slate-800/50"
                >
                  {row.getVisibleCells().map((cell) => {
                    const part = parts.get(cell.column.id) ?? 'field';
                    const label = columnLabel(cell.column.columnDef);
                    const content = flexRender(cell.column.columnDef.cell, cell.getContext());
                    const Cell = cell.column.columnDef.meta?.rowHeader ? 'th' : 'td';
                    return (
                      <Cell
                        key={cell.id}
                        role={Cell === 'th' ? 'rowheader' : 'cell'}
                        scope={Cell === 'th' ? 'row' : undefined}
                        data-label={label}
                        className={cn(
                          'px-4 py-2.5 max-sm:min-w-0 max-sm:py-1 max-sm:break-words',
                          Cell === 'th' && 'font-medium',
                          part === 'field' && 'max-sm:grid max-sm:grid-cols-[6.5rem_minmax(0,1fr)] max-sm:items-baseline max-sm:gap-x-3',
                          part === 'wide' && 'max-sm:grid max-sm:grid-cols-1 max-sm:gap-y-0.5',
                          part === 'title' && 'max-sm:order-first max-sm:block max-sm:pb-1.5 max-sm:font-medium',
                          // Opaque backgrounds while sticky: the cells scrolling under it stay hidden, also on a hovered row.
                          part === 'actions' &&
                            'max-sm:order-last max-sm:block max-sm:pt-2 max-sm:has-[>div:empty]:hidden sm:sticky sm:right-0 sm:bg-white sm:group-hover:bg-slate-50 dark:sm:bg-slate-900 dark:sm:group-hover:bg-[color-mix(in_oklab,var(--color-slate-800)_50%,var(--color-slate-900))]',
                        )}
                      >
                        {part === 'field' || part === 'wide' ? (
                          <span aria-hidden="true" className="text-xs font-medium text-slate-600 sm:hidden dark:text-slate-400">
                            {label}
                          </span>
                        ) : null}
                        <div className="min-w-0 max-sm:[&_*]:whitespace-normal">{content}</div>
                      </Cell>
                    );
                  })}
                </tr>
                {below ? (
                  <tr role="row" className="max-sm:block">
                    <td role="cell" colSpan={row.getVisibleCells().length} className="bg-slate-50 px-4 py-3 max-sm:block dark:bg-slate-950">
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

import type { ReactNode } from 'react';

/** What to do next when there is nothing to show yet. */
export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="grid justify-items-center gap-2 rounded-xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center dark:border-slate-700 dark:bg-slate-900">
      <p className="font-semibold">{title}</p>
      {children ? <div className="max-w-md text-sm text-slate-600 dark:text-slate-400">{children}</div> : null}
      {action ? <div className="mt-2">{action}</div> : null}
    </div>
  );
}

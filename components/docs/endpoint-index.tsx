import { cn } from '@/components/ui/cn';

export interface EndpointGroup {
  tag: string;
  description?: string;
  operations: { method: string; path: string; summary: string; deprecated: boolean; href: string }[];
}

const METHOD_STYLES: Record<string, string> = {
  GET: 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200',
  POST: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200',
  PUT: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200',
  PATCH: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200',
  DELETE: 'bg-rose-100 text-rose-900 dark:bg-rose-950 dark:text-rose-200',
};

/** The document's `code` spans (Markdown backticks) as code, the rest as text. */
function withCode(text: string) {
  return text.split(/`([^`]+)`/).map((part, i) =>
    i % 2 === 1 ? (
      <code key={i} className="font-mono text-xs">
        {part}
      </code>
    ) : (
      part
    ),
  );
}

/**
 * Every endpoint at a glance, grouped as the reference groups them: method, path and what it does,
 * each a link to its place in the interactive reference below. Rendered on the server, so it is
 * there with the page's first paint, without JavaScript.
 */
export function EndpointIndex({ groups }: { groups: EndpointGroup[] }) {
  return (
    <nav aria-label="Endpoints" className="grid gap-6 md:grid-cols-2" data-testid="endpoint-index">
      {groups.map((g) => (
        <section key={g.tag} aria-labelledby={`index-${g.tag}`} className="min-w-0">
          <h3 id={`index-${g.tag}`} className="font-semibold capitalize">
            {g.tag}
          </h3>
          {g.description ? <p className="mt-0.5 text-sm text-slate-600 dark:text-slate-400">{withCode(g.description)}</p> : null}
          <ul className="mt-2 grid gap-1">
            {g.operations.map((op) => (
              <li key={`${op.method} ${op.path}`}>
                <a
                  href={op.href}
                  className="group grid grid-cols-[4.25rem_minmax(0,1fr)] items-baseline gap-x-2 rounded-sm text-sm focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none"
                >
                  <span className={cn('rounded px-1.5 py-0.5 text-center font-mono text-xs font-semibold', METHOD_STYLES[op.method])}>
                    {op.method}
                  </span>
                  <span className="min-w-0">
                    <span className="font-mono text-xs wrap-anywhere text-slate-800 group-hover:underline dark:text-slate-200">
                      {op.path}
                    </span>
                    <span className={cn('block text-slate-600 dark:text-slate-400', op.deprecated && 'line-through')}>
                      {op.summary}
                      {op.deprecated ? <span className="sr-only"> (deprecated)</span> : null}
                    </span>
                  </span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}

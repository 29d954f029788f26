import type { Metadata } from 'next';
import { ERROR_REFERENCE, RETRY_LABELS, type RetryAdvice } from '@/src/contract/error-docs';

export const metadata: Metadata = { title: 'Errors' };

const RETRY_STYLES: Record<RetryAdvice, string> = {
  no: 'bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300',
  after_retry_after: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200',
  with_backoff: 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200',
};

const muted = 'text-sm text-slate-600 dark:text-slate-400';

/** Public: every error code of the API, one section per code (`#<code>`, the target of each error body's `doc_url`). */
export default function ErrorsPage() {
  return (
    <main id="main" className="mx-auto grid w-full max-w-4xl gap-8 px-4 py-6 sm:px-6 md:py-8">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Errors</h1>
        <p className={`mt-1 max-w-3xl ${muted}`}>
          Every non-2xx answer of the API has a JSON body <code className="font-mono">{'{ error, message, request_id, doc_url }'}</code> plus
          the fields of its code. <code className="font-mono">error</code> is the code below, <code className="font-mono">doc_url</code> links
          its section here, and <code className="font-mono">request_id</code> repeats the <code className="font-mono">X-Request-Id</code> header
          (quote it when you report a problem). Back to the{' '}
          <a className="underline" href="/docs">
            API reference
          </a>
          .
        </p>
      </div>

      <nav aria-labelledby="codes-heading" className="grid gap-2">
        <h2 id="codes-heading" className="text-lg font-semibold">
          Codes
        </h2>
        <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          {ERROR_REFERENCE.map((e) => (
            <li key={e.code}>
              <a className="font-mono text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={`#${e.code}`}>
                {e.code}
              </a>{' '}
              <span className="text-slate-600 dark:text-slate-400">{e.status}</span>
            </li>
          ))}
        </ul>
      </nav>

      {ERROR_REFERENCE.map((e) => (
        <section
          key={e.code}
          id={e.code}
          aria-labelledby={`${e.code}-heading`}
          className="scroll-mt-20 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
        >
          <div className="flex flex-wrap items-baseline gap-3">
            <h2 id={`${e.code}-heading`} className="font-mono text-lg font-semibold">
              {e.code}
            </h2>
            <span className="font-mono text-sm text-slate-600 dark:text-slate-400">HTTP {e.status}</span>
            <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${RETRY_STYLES[e.retry]}`}>{RETRY_LABELS[e.retry]}</span>
          </div>
          <p className="mt-2 text-sm">{e.meaning}</p>
          <p className="mt-2 text-sm">
            <span className="font-semibold">What to do: </span>
            {e.action}
          </p>
          {e.fields.length > 0 && (
            <div className="mt-3">
              <h3 className="text-sm font-semibold">Fields</h3>
              <dl className="mt-1 grid gap-1 text-sm sm:grid-cols-[max-content_1fr] sm:gap-x-4">
                {e.fields.map((f) => (
                  <div key={f.name} className="contents">
                    <dt className="font-mono text-slate-800 dark:text-slate-200">{f.name}</dt>
                    <dd className={muted}>{f.what}</dd>
                  </div>
                ))}
              </dl>
            </div>
          )}
          {e.headers.length > 0 && (
            <p className={`mt-3 ${muted}`}>
              Headers: <span className="font-mono">{e.headers.join(', ')}</span>
            </p>
          )}
        </section>
      ))}
    </main>
  );
}

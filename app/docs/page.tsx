import type { Metadata } from 'next';
import { connection } from 'next/server';
import { ApiReference } from '@/components/docs/api-reference';
import { EndpointIndex } from '@/components/docs/endpoint-index';
import { endpointIndex } from '@/app/_lib/endpoint-index';

export const metadata: Metadata = { title: 'API reference' };

/** The guides in the repository's docs/ folder, with what each one answers. */
const GUIDES = [
  { path: 'README.md', title: 'README', what: 'What the platform is, how to run it, the endpoint table and configuration.' },
  { path: 'docs/auth.md', title: 'Authentication', what: 'API keys and scopes, bearer tokens from the identity provider, OAuth for MCP clients, dashboard sessions and operators.' },
  { path: 'docs/webhooks.md', title: 'Webhooks', what: 'Event kinds, the Standard Webhooks signature and how to verify it, retries, disabling and replay.' },
  { path: 'docs/billing.md', title: 'Billing', what: 'Plans, quota and overage, usage, invoices and their PDF, plan changes and proration.' },
  { path: 'docs/mcp.md', title: 'MCP endpoint', what: 'Every module action as an MCP tool at /api/mcp, resources, and connecting a client.' },
  { path: 'docs/a2a.md', title: 'A2A endpoint', what: 'The platform as an A2A agent: the agent card and one message per action.' },
  { path: 'docs/publishing.md', title: 'Publishing modules', what: 'Publishing and updating your own modules, their schemas, runtimes and limits.' },
  { path: 'docs/trust.md', title: 'Certification and trust', what: 'Certification tiers, the trust score and its components, feedback.' },
  { path: 'docs/dashboard.md', title: 'Dashboard', what: 'The dashboard pages, how they get their data, and the libraries behind them.' },
] as const;

const MACHINE_READABLE = [
  { href: '/api/openapi.json', label: 'OpenAPI document', what: 'The OpenAPI 3.1 document this reference is rendered from.' },
  { href: '/api/openapi-auth.json', label: 'Sign-in and OAuth', what: 'The OpenAPI 3.1 document of the identity provider and the OAuth server.' },
  { href: '/api/openapi-admin.json', label: 'Operator API', what: 'The OpenAPI 3.1 document of the operator’s endpoints (x-admin-token).' },
  { href: '/api/llms.txt', label: 'llms.txt', what: 'A plain-text guide to the API for agents.' },
  { href: '/.well-known/agent.json', label: 'Agent card', what: 'The A2A AgentCard.' },
] as const;

/**
 * Public: the guides, every endpoint at a glance (rendered here from the generated OpenAPI document)
 * and the interactive API reference (Scalar over the same document, loaded as it nears the screen).
 */
export default async function DocsPage() {
  // Rendered per request: the index is read from the running service.
  await connection();
  const groups = await endpointIndex();
  return (
    <main id="main" className="mx-auto grid w-full max-w-7xl gap-8 px-4 py-6 sm:px-6 md:py-8">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">API reference</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-600 dark:text-slate-400">
          Every REST endpoint with its parameters, responses and errors, generated from the same procedures the service runs. Authenticate with an{' '}
          <code className="font-mono">x-api-key</code> header (create keys in the{' '}
          <a className="underline" href="/dashboard/keys">
            dashboard
          </a>
          ) or a bearer token. Every error code, what it means and what to do about it:{' '}
          <a className="font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href="/docs/errors">
            Errors
          </a>
          .
        </p>
      </div>

      <section aria-labelledby="guides-heading" className="grid gap-3">
        <h2 id="guides-heading" className="text-lg font-semibold">
          Guides
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">In the service&apos;s repository, next to its code:</p>
        <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
          {GUIDES.map((g) => (
            <li key={g.path} className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
              <p className="font-semibold">{g.title}</p>
              <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{g.what}</p>
              <code className="mt-2 block font-mono text-xs text-slate-700 dark:text-slate-300">{g.path}</code>
            </li>
          ))}
        </ul>
        <ul className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
          {MACHINE_READABLE.map((m) => (
            <li key={m.href}>
              <a className="font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={m.href}>
                {m.label}
              </a>{' '}
              <span className="text-slate-600 dark:text-slate-400">— {m.what}</span>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="reference-heading" className="grid gap-3">
        <h2 id="reference-heading" className="text-lg font-semibold">
          Endpoints
        </h2>
        {groups ? <EndpointIndex groups={groups} /> : null}
      </section>

      <section aria-labelledby="interactive-heading" className="grid gap-3">
        <h2 id="interactive-heading" className="text-lg font-semibold">
          Interactive reference
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Each endpoint&apos;s parameters, request and response bodies, errors and examples, with a client to try it.
        </p>
        {/* Without the index above it (the document could not be read here), there is nothing to load it ahead of. */}
        <ApiReference eager={!groups} />
      </section>
    </main>
  );
}

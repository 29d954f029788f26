// The front page. Pages import no server code from src/ (only the pure src/contract/): they call
// the API over HTTP, so Next never bundles a second copy of the data layer.
import { Link } from '@/components/ui/link';
import { Button } from '@/components/ui/button';
import { currentSession } from './_lib/session';

const links = [
  { href: '/api/v1/health', label: 'Health', description: 'Service status and dependency checks' },
  { href: '/api/openapi.json', label: 'OpenAPI', description: 'The OpenAPI 3.1 document of the REST API' },
  { href: '/api/llms.txt', label: 'llms.txt', description: 'A plain-text guide to the API for agents' },
  { href: '/.well-known/agent.json', label: 'Agent card', description: 'The A2A AgentCard' },
] as const;

export default async function HomePage() {
  const session = await currentSession();
  return (
    <main id="main" className="mx-auto flex w-full max-w-3xl flex-col px-6 py-14 sm:py-20">
      <p className="text-sm font-semibold tracking-wider text-indigo-700 uppercase dark:text-indigo-300">Agent Module Platform</p>
      <h1 className="mt-2 text-4xl font-bold tracking-tight">Modules for agents, one API</h1>
      <p className="mt-4 text-lg text-slate-700 dark:text-slate-300">
        Agents and scripts call the REST API and the MCP endpoint with an <code className="font-mono text-base">x-api-key</code> or a bearer
        token. The dashboard is where tenant owners sign in to manage keys, webhooks, usage and invoices.
      </p>
      <div className="mt-8 flex flex-wrap gap-3">
        {session ? (
          <Button asChild size="lg">
            <Link href="/dashboard">Open the dashboard</Link>
          </Button>
        ) : (
          <>
            <Button asChild size="lg">
              <Link href="/sign-in">Sign in</Link>
            </Button>
            <Button asChild size="lg" variant="secondary">
              <Link href="/sign-up">Create an account</Link>
            </Button>
          </>
        )}
      </div>
      <h2 className="mt-14 text-lg font-semibold">For developers</h2>
      <ul className="mt-4 grid gap-4 sm:grid-cols-2">
        {links.map((link) => (
          <li key={link.href}>
            <a
              href={link.href}
              className="block h-full rounded-xl border border-slate-200 bg-white p-5 shadow-sm transition hover:border-indigo-400 hover:shadow-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:border-slate-800 dark:bg-slate-900 dark:hover:border-indigo-500"
            >
              <span className="font-semibold">{link.label}</span>
              <span className="mt-1 block text-sm text-slate-600 dark:text-slate-400">{link.description}</span>
              <code className="mt-3 block font-mono text-xs text-indigo-700 dark:text-indigo-300">{link.href}</code>
            </a>
          </li>
        ))}
      </ul>
    </main>
  );
}

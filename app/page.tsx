// Placeholder dashboard. Pages never import src/ (see DESIGN.md §2, "Serving"): they call the
// API over HTTP, so Next never bundles a second copy of the data layer.

const links = [
  { href: '/api/v1/health', label: 'Health', description: 'Service status and dependency checks' },
  { href: '/api/openapi.json', label: 'OpenAPI', description: 'The OpenAPI 3.1 document of the REST API' },
  { href: '/api/llms.txt', label: 'llms.txt', description: 'A plain-text guide to the API for agents' },
  { href: '/.well-known/agent.json', label: 'Agent card', description: 'The A2A AgentCard' },
] as const;

export default function HomePage() {
  return (
    <main className="mx-auto flex min-h-screen max-w-3xl flex-col justify-center px-6 py-16">
      <p className="text-sm font-semibold uppercase tracking-wider text-indigo-600 dark:text-indigo-400">
        Agent Module Platform
      </p>
      <h1 className="mt-2 text-4xl font-bold tracking-tight">Dashboard coming soon</h1>
      <p className="mt-4 text-lg text-slate-600 dark:text-slate-400">
        The API is live. Agents and scripts can use it today with an <code className="font-mono text-base">x-api-key</code>.
      </p>
      <ul className="mt-10 grid gap-4 sm:grid-cols-2">
        {links.map((link) => (
          <li key={link.href}>
            <a
              href={link.href}
              className="block h-full rounded-xl border border-slate-200 bg-white p-5 shadow-sm transition hover:border-indigo-400 hover:shadow-md dark:border-slate-800 dark:bg-slate-900 dark:hover:border-indigo-500"
            >
              <span className="font-semibold">{link.label}</span>
              <span className="mt-1 block text-sm text-slate-600 dark:text-slate-400">{link.description}</span>
              <code className="mt-3 block font-mono text-xs text-indigo-600 dark:text-indigo-400">{link.href}</code>
            </a>
          </li>
        ))}
      </ul>
    </main>
  );
}

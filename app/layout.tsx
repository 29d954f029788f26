import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { SiteHeader } from '@/components/site-header';
import { StrictCsp } from '@/client/strict-csp';
import { currentSession } from './_lib/session';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Agent Module Platform', template: '%s · Agent Module Platform' },
  description: 'Multi-tenant platform for agent modules: REST API, MCP and dashboard.',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const session = await currentSession();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <a
          href="#main"
          className="sr-only rounded-md bg-white px-3 py-2 text-sm font-medium focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:ring-2 focus:ring-indigo-500 dark:bg-slate-900"
        >
          Skip to content
        </a>
        <StrictCsp />
        <SiteHeader session={session} />
        {children}
      </body>
    </html>
  );
}

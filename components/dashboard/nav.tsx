'use client';

import { Activity, BookOpen, Boxes, Brain, CreditCard, FileText, Gauge, KeyRound, Shield, UserRound, Webhook, Workflow } from 'lucide-react';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { cn } from '../ui/cn';

/** The dashboard's sections, in the order a tenant owner needs them. */
export const NAV_ITEMS = [
  { href: '/dashboard', label: 'Overview', icon: Gauge },
  { href: '/dashboard/keys', label: 'API keys', icon: KeyRound },
  { href: '/dashboard/webhooks', label: 'Webhooks', icon: Webhook },
  { href: '/dashboard/modules', label: 'Modules', icon: Boxes },
  { href: '/dashboard/executions', label: 'Executions', icon: Activity },
  { href: '/dashboard/usage', label: 'Usage', icon: CreditCard },
  { href: '/dashboard/invoices', label: 'Invoices', icon: FileText },
  { href: '/dashboard/memory', label: 'Memory', icon: Brain },
  { href: '/dashboard/workflows', label: 'Workflows', icon: Workflow },
  { href: '/docs', label: 'API reference', icon: BookOpen },
  { href: '/account', label: 'Account', icon: UserRound },
] as const;

const ADMIN_ITEM = { href: '/dashboard/admin', label: 'Admin', icon: Shield } as const;

function isActive(pathname: string, href: string): boolean {
  return href === '/dashboard' ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
}

/**
 * The section links: a sidebar from the `md` breakpoint up, a horizontally scrolling strip
 * above the page on narrow screens. The current page is marked with aria-current.
 */
export function DashboardNav({ admin, hidden = [] }: { admin: boolean; hidden?: string[] }) {
  const pathname = usePathname();
  const items = [...NAV_ITEMS.filter((i) => !hidden.includes(i.href)), ...(admin ? [ADMIN_ITEM] : [])];
  return (
    <nav aria-label="Dashboard" className="-mx-4 overflow-x-auto px-4 md:mx-0 md:px-0">
      <ul className="flex gap-1 md:flex-col">
        {items.map(({ href, label, icon: Icon }) => {
          const active = isActive(pathname, href);
          return (
            <li key={href} className="shrink-0">
              <Link
                href={href}
                aria-current={active ? 'page' : undefined}
                className={cn(
                  'flex items-center gap-2 rounded-md px-3 py-2 text-sm font-medium focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none',
                  active
                    ? 'bg-indigo-50 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200'
                    : 'text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800',
                )}
              >
                <Icon aria-hidden="true" className="size-4" />
                {label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

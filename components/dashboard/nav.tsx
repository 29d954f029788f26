'use client';

import {
  Activity,
  BookOpen,
  Boxes,
  Brain,
  CreditCard,
  FileText,
  Gauge,
  KeyRound,
  Menu,
  ScrollText,
  Shield,
  UserRound,
  Users,
  Webhook,
  Workflow,
} from 'lucide-react';
import { Link } from '@/components/ui/link';
import { usePathname } from 'next/navigation';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { Sheet, SheetContent, SheetTrigger } from '@/components/ui/sheet';
import { WebhookAttentionBadge } from '@/components/dashboard/webhooks/attention';
import { allows, useCaller, type Action, type Caller } from '@/components/dashboard/access';
import { TenantSwitcher } from '@/components/dashboard/tenant-switcher';

/**
 * The dashboard's sections, in the order a tenant owner needs them; `needs`: what the caller's
 * role (or key) must be allowed to read for the section to be listed (components/dashboard/access.tsx).
 */
export const NAV_ITEMS = [
  { href: '/dashboard', label: 'Overview', icon: Gauge },
  { href: '/dashboard/keys', label: 'API keys', icon: KeyRound, needs: 'readKeys' },
  { href: '/dashboard/webhooks', label: 'Webhooks', icon: Webhook, needs: 'readWebhooks' },
  { href: '/dashboard/modules', label: 'Modules', icon: Boxes, needs: 'readModules' },
  { href: '/dashboard/executions', label: 'Executions', icon: Activity, needs: 'readModules' },
  { href: '/dashboard/usage', label: 'Usage', icon: CreditCard, needs: 'readBilling' },
  { href: '/dashboard/invoices', label: 'Invoices', icon: FileText, needs: 'readBilling' },
  { href: '/dashboard/memory', label: 'Memory', icon: Brain, needs: 'readMemory' },
  { href: '/dashboard/workflows', label: 'Workflows', icon: Workflow, needs: 'readModules' },
  { href: '/dashboard/members', label: 'Members', icon: Users, needs: 'readMembers' },
  { href: '/dashboard/audit-log', label: 'Audit log', icon: ScrollText, needs: 'readAudit' },
  { href: '/docs', label: 'API reference', icon: BookOpen },
  { href: '/account', label: 'Account', icon: UserRound },
] as const satisfies readonly { href: string; label: string; icon: unknown; needs?: Action }[];

/** Whether the caller may read the section (every section while `members.me` is unknown). */
function listed(item: object, caller: Caller | undefined): boolean {
  const needs = 'needs' in item ? (item.needs as Action) : undefined;
  return !needs || !caller || allows(caller, needs);
}

const ADMIN_ITEM = { href: '/dashboard/admin', label: 'Admin', icon: Shield } as const;

type NavItem = (typeof NAV_ITEMS)[number] | typeof ADMIN_ITEM;

function isActive(pathname: string, href: string): boolean {
  return href === '/dashboard' ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
}

function NavLinks({
  items,
  pathname,
  onNavigate,
  tenant,
}: {
  items: NavItem[];
  pathname: string;
  onNavigate?: () => void;
  tenant: boolean;
}) {
  return (
    <ul className="flex flex-col gap-1">
      {items.map(({ href, label, icon: Icon }) => {
        const active = isActive(pathname, href);
        return (
          <li key={href}>
            <Link
              href={href}
              aria-current={active ? 'page' : undefined}
              onClick={onNavigate}
              className={cn(
                'flex items-center gap-2 rounded-md px-3 py-2 text-sm font-medium focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none',
                active
                  ? 'bg-indigo-50 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200'
                  : 'text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800',
              )}
            >
              <Icon aria-hidden="true" className="size-4" />
              {label}
              {href === '/dashboard/webhooks' ? <WebhookAttentionBadge enabled={tenant} /> : null}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * The section links: a sidebar from the `md` breakpoint up; below it, the current section's
 * name and a Menu button opening every section in a sheet (a Radix dialog: focus moves into it,
 * Escape closes it, focus returns to the button), closed again by following a link. The
 * current page is marked with aria-current in both. "Webhooks" carries a badge while any of the
 * tenant's webhooks is disabled or failing (`tenant`: the user has one to ask about). Sections
 * the caller's role cannot read are left out (a billing member sees no keys, webhooks, modules,
 * executions, memory or workflows); a user in several tenants gets the workspace switcher above.
 */
export function DashboardNav({ admin, hidden = [], tenant = false }: { admin: boolean; hidden?: string[]; tenant?: boolean }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const caller = useCaller().data as Caller | undefined;
  const items: NavItem[] = [...NAV_ITEMS.filter((i) => !hidden.includes(i.href) && listed(i, caller)), ...(admin ? [ADMIN_ITEM] : [])];
  const current = items.find((i) => isActive(pathname, i.href));
  return (
    <>
      <div className="hidden gap-4 md:grid">
        <TenantSwitcher />
        <nav aria-label="Dashboard">
          <NavLinks items={items} pathname={pathname} tenant={tenant} />
        </nav>
      </div>
      <div className="flex items-center justify-between gap-3 md:hidden">
        <p className="min-w-0 truncate text-sm font-medium text-slate-700 dark:text-slate-300" data-testid="nav-current">
          {current?.label}
        </p>
        <Sheet open={open} onOpenChange={setOpen}>
          <SheetTrigger asChild>
            <Button type="button" variant="secondary" size="sm">
              <Menu aria-hidden="true" className="size-4" />
              Menu
              <WebhookAttentionBadge enabled={tenant} />
            </Button>
          </SheetTrigger>
          <SheetContent title="Menu" className="md:hidden">
            <TenantSwitcher className="mb-4" />
            <nav aria-label="Dashboard">
              <NavLinks items={items} pathname={pathname} onNavigate={() => setOpen(false)} tenant={tenant} />
            </nav>
          </SheetContent>
        </Sheet>
      </div>
    </>
  );
}

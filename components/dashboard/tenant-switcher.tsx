'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useRouter, usePathname } from 'next/navigation';
import { useId, useState } from 'react';
import { chooseTenant } from '@/client/tenant';
import { useCaller } from '@/components/dashboard/access';
import { cn } from '@/components/ui/cn';

const ROLE_LABEL = { owner: 'Owner', admin: 'Admin', developer: 'Developer', billing: 'Billing', viewer: 'Viewer' } as const;

/** A detail page (a webhook, an execution, an invoice…) belongs to one tenant: switching goes to its section. */
function sectionOf(pathname: string): string | undefined {
  const parts = pathname.split('/').filter(Boolean);
  return parts[0] === 'dashboard' && parts.length > 2 ? `/dashboard/${parts[1]}` : undefined;
}

/**
 * The workspace switcher, for a user who belongs to more than one tenant (`members.me`'s
 * memberships, each with its role): picking one sets the tenant cookie (client/tenant.ts), which
 * every later call sends on as X-Tenant-Id, and reloads the page's data for it.
 */
export function TenantSwitcher({ className }: { className?: string }) {
  const me = useCaller();
  const queryClient = useQueryClient();
  const router = useRouter();
  const pathname = usePathname();
  const id = useId();
  const [switching, setSwitching] = useState(false);
  const memberships = me.data?.memberships ?? [];
  if (!me.data || memberships.length < 2) return null;

  const change = async (tenantId: string) => {
    if (tenantId === me.data.tenant_id) return;
    setSwitching(true);
    chooseTenant(tenantId);
    const section = sectionOf(pathname);
    if (section) router.push(section);
    router.refresh();
    await queryClient.resetQueries();
    setSwitching(false);
  };

  return (
    <div className={cn('grid gap-1.5', className)} data-testid="tenant-switcher">
      <label htmlFor={id} className="text-xs font-medium tracking-wide text-slate-600 uppercase dark:text-slate-400">
        Workspace
      </label>
      <select
        id={id}
        value={me.data.tenant_id}
        disabled={switching}
        aria-busy={switching || undefined}
        onChange={(e) => void change(e.target.value)}
        className="h-10 w-full rounded-md border border-slate-400 bg-white px-2 text-sm text-slate-900 shadow-sm focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none disabled:opacity-60 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
      >
        {memberships.map((m) => (
          <option key={m.tenant_id} value={m.tenant_id}>
            {m.agent_name} ({ROLE_LABEL[m.role]})
          </option>
        ))}
      </select>
    </div>
  );
}

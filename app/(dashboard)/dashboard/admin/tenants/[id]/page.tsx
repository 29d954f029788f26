import type { Metadata } from 'next';
import { AdminTenantView } from '@/components/dashboard/admin/admin-tenant-view';
import { Alert } from '@/components/ui/alert';
import { PageHeader } from '@/components/ui/page-header';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';

export const metadata: Metadata = { title: 'Tenant · Admin' };

type Params = Promise<{ id: string }>;

/** Operators only, as the Admin page: one tenant's plan, usage, keys, webhooks and failed deliveries. */
export default async function AdminTenantPage({ params }: { params: Params }) {
  const { id } = await params;
  const session = await requireSession(`/dashboard/admin/tenants/${encodeURIComponent(id)}`);
  if (!session.admin) {
    return (
      <div className="grid gap-6">
        <PageHeader title="Admin" />
        <Alert variant="error" title="Not authorized">
          This page is for the service&apos;s operators. Your account is not one of them.
        </Alert>
      </div>
    );
  }
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.admin.tenant.queryOptions({ tenant_id: id }))]}>
      <AdminTenantView id={id} />
    </WithData>
  );
}

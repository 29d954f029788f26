import type { Metadata } from 'next';
import { AdminView } from '@/components/dashboard/admin/admin-view';
import { Alert } from '@/components/ui/alert';
import { PageHeader } from '@/components/ui/page-header';
import { requireSession } from '@/app/_lib/session';
import { prefetchCursorPages, WithData } from '@/app/_lib/prefetch';
import { ADMIN_AUDIT_LOG, ADMIN_DISABLED_WEBHOOKS, ADMIN_FAILED_DELIVERIES, ADMIN_TENANTS } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Admin' };

/**
 * Operators only. The session's `admin` flag (email in ADMIN_EMAILS) decides what the page shows;
 * the API decides what it answers (the email must also be confirmed: src/identity/operator.ts).
 */
export default async function AdminPage() {
  const session = await requireSession('/dashboard/admin');
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
    <WithData
      prefetch={({ trpc, client, queryClient }) => [
        queryClient.prefetchQuery(trpc.admin.listTenants.queryOptions(ADMIN_TENANTS)),
        queryClient.prefetchQuery(trpc.admin.disabledWebhooks.queryOptions(ADMIN_DISABLED_WEBHOOKS)),
        queryClient.prefetchQuery(trpc.admin.failedDeliveries.queryOptions(ADMIN_FAILED_DELIVERIES)),
        prefetchCursorPages(queryClient, trpc.admin.auditLog.queryKey(ADMIN_AUDIT_LOG), () => client.admin.auditLog.query(ADMIN_AUDIT_LOG)),
      ]}
    >
      <AdminView />
    </WithData>
  );
}

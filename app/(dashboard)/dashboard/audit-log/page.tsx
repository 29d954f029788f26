import type { Metadata } from 'next';
import { AuditLogView } from '@/components/dashboard/audit/audit-log-view';
import { requireSession } from '@/app/_lib/session';
import { callerMay, prefetchCursorPages, WithData } from '@/app/_lib/prefetch';
import { AUDIT_LOG_LIST } from '@/components/dashboard/first-queries';

export const metadata: Metadata = { title: 'Audit log' };

export default async function AuditLogPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireSession('/dashboard/audit-log');
  // The latest entries are prefetched; a filter in the URL the view asks for itself.
  const unfiltered = Object.keys(await searchParams).length === 0;
  return (
    <WithData
      prefetch={async (p) => {
        if (unfiltered && (await callerMay(p, 'readAudit')))
          await prefetchCursorPages(p.queryClient, p.trpc.auditLog.list.queryKey(AUDIT_LOG_LIST), () =>
            p.client.auditLog.list.query(AUDIT_LOG_LIST),
          );
      }}
    >
      <AuditLogView />
    </WithData>
  );
}

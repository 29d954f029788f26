import type { Metadata } from 'next';
import { AuditLogView } from '@/components/dashboard/audit/audit-log-view';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Audit log' };

export default async function AuditLogPage() {
  await requireSession('/dashboard/audit-log');
  return <AuditLogView />;
}

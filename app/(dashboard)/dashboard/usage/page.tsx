import type { Metadata } from 'next';
import { UsageView } from '../../../../components/dashboard/usage/usage-view';
import { requireSession } from '../../../_lib/session';

export const metadata: Metadata = { title: 'Usage' };

export default async function UsagePage() {
  await requireSession('/dashboard/usage');
  return <UsageView />;
}

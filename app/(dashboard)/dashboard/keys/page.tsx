import type { Metadata } from 'next';
import { KeysView } from '@/components/dashboard/keys/keys-view';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'API keys' };

export default async function KeysPage() {
  await requireSession('/dashboard/keys');
  return <KeysView />;
}

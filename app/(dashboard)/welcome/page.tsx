import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { WelcomeForm } from '@/components/account/welcome-form';
import { createTenant } from '@/app/_lib/actions';
import { requireSession, tenantLinked } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Name your workspace' };

/** After sign-up: one question, then the overview. A user who has a workspace goes straight there. */
export default async function WelcomePage() {
  const session = await requireSession('/welcome');
  if (session.kind === 'api_key' || (await tenantLinked()) === 'linked') redirect('/dashboard');
  return <WelcomeForm createTenant={createTenant} operator={session.admin} />;
}

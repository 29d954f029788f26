import type { Metadata } from 'next';
import { AccountView } from '@/components/account/account-view';
import { changePassword, createTenant, linkTenant } from '@/app/_lib/actions';
import { addPasskey, listPasskeys, passkeyRegistrationOptions, removePasskey } from '@/app/_lib/passkey-actions';
import { requireSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Account' };

export default async function AccountPage() {
  const session = await requireSession('/account');
  return (
    <div className="grid gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Account</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">Your sign-in, your tenant, your password and passkeys.</p>
      </div>
      <AccountView
        session={session}
        actions={{ changePassword, createTenant, linkTenant }}
        passkeys={{ listPasskeys, passkeyRegistrationOptions, addPasskey, removePasskey }}
      />
    </div>
  );
}

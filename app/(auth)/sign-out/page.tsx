import type { Metadata } from 'next';
import { SignOutConfirm } from '@/components/auth/sign-out-confirm';
import { currentSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Sign out' };

export default async function SignOutPage() {
  return <SignOutConfirm signedIn={(await currentSession()) !== null} />;
}

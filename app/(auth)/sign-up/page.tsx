import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SignUpForm } from '@/components/auth/sign-up-form';
import { signUp } from '@/app/_lib/actions';
import { safeCallbackPath } from '@/app/_lib/env';
import { currentSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Create an account' };

type Search = Promise<Record<string, string | string[] | undefined>>;

/** `?callbackUrl=`: where a new account goes once signed in (an invitation's page), else naming its workspace. */
export default async function SignUpPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const callbackUrl = params.callbackUrl ? safeCallbackPath(params.callbackUrl) : undefined;
  if (await currentSession()) redirect(callbackUrl ?? '/welcome');
  return <SignUpForm signUp={signUp} callbackUrl={callbackUrl} />;
}

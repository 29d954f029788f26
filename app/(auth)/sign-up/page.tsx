import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SignUpForm } from '@/components/auth/sign-up-form';
import { signUp } from '@/app/_lib/actions';
import { currentSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Create an account' };

export default async function SignUpPage() {
  if (await currentSession()) redirect('/welcome');
  return <SignUpForm signUp={signUp} />;
}

import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SignInForms } from '@/components/auth/sign-in-forms';
import { resendConfirmation } from '@/app/_lib/actions';
import { passkeySignInOptions } from '@/app/_lib/passkey-actions';
import { Copyable } from '@/components/ui/copyable';
import { ForDevelopers } from '@/components/ui/for-developers';
import { dashboardEnv, safeCallbackPath } from '@/app/_lib/env';
import { currentSession } from '@/app/_lib/session';

export const metadata: Metadata = { title: 'Sign in' };

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function SignInPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackPath(params.callbackUrl);
  if (await currentSession()) redirect(callbackUrl);
  const env = dashboardEnv();
  const error = typeof params.error === 'string' ? params.error : undefined;
  return (
    <>
      <SignInForms
        callbackUrl={callbackUrl}
        initialError={error}
        fromConfirmationLink={Boolean(params.confirmed)}
        resend={resendConfirmation}
        passkeyOptions={passkeySignInOptions}
      />
      <ForDevelopers summary="For developers: signing users in from your own app">
        <p className="text-slate-700 dark:text-slate-300">
          Your app gets a bearer token for the API from the identity provider&apos;s password grant, with this anon key in the{' '}
          <code className="font-mono">apikey</code> header (it is public: it identifies the provider, not a user).
        </p>
        <Copyable value={env.anonKey} label="anon key" />
        <Copyable
          label="curl command"
          value={`curl -X POST '${env.authPublicUrl}/auth/v1/token?grant_type=password' \\\n  -H 'apikey: ${env.anonKey}' -H 'content-type: application/json' \\\n  -d '{"email":"you@example.com","password":"…"}'`}
        />
        <p className="text-slate-700 dark:text-slate-300">
          Send the returned <code className="font-mono">access_token</code> as <code className="font-mono">Authorization: Bearer …</code>.
          See{' '}
          <a className="text-indigo-700 underline dark:text-indigo-300" href="/api/llms.txt">
            the API guide
          </a>
          .
        </p>
      </ForDevelopers>
    </>
  );
}

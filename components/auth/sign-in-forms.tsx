'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { Link } from '@/components/ui/link';
import { signIn } from 'next-auth/react';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { FormField } from '@/components/ui/form-field';
import type { PasskeySignInOptionsAction, ResendConfirmationAction } from '@/client/actions';
import { PasskeySignIn } from './passkey-sign-in';
import { ResendConfirmation } from './resend-confirmation';

const passwordSchema = z.object({
  email: z.email('Enter a valid email address.'),
  password: z.string().min(1, 'Enter your password.'),
});
const apiKeySchema = z.object({ apiKey: z.string().trim().min(1, 'Enter an API key.') });

/** next-auth's generic codes, as a person would say them; the provider's own messages pass through. */
function explain(error: string): string {
  if (error === 'CredentialsSignin') return 'Those credentials were not accepted.';
  if (error === 'SessionRequired') return 'Sign in to continue.';
  return error;
}

export function SignInForms({
  callbackUrl,
  initialError,
  fromConfirmationLink,
  resend,
  passkeyOptions,
}: {
  callbackUrl: string;
  /** The passkey sign-in's challenge (app/_lib/passkey-actions.ts). */
  passkeyOptions: PasskeySignInOptionsAction;
  initialError?: string;
  /** The page was opened by a confirmation link (`?confirmed=1`): its fragment says how it went. */
  fromConfirmationLink: boolean;
  resend: ResendConfirmationAction;
}) {
  const [method, setMethod] = useState<'password' | 'api-key'>('password');
  const [link, setLink] = useState<'confirmed' | 'failed'>();
  // A confirmation link lands here with the provider's session in the fragment (not needed, not
  // kept), or with the reason it failed (expired, already used).
  useEffect(() => {
    const fragment = new URLSearchParams(window.location.hash.slice(1));
    if (fromConfirmationLink) {
      if (fragment.has('error_code') || fragment.has('error')) setLink('failed');
      else if (fragment.has('access_token')) setLink('confirmed');
    }
    if (window.location.hash) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  }, [fromConfirmationLink]);
  return (
    <div className="grid gap-6">
      {link === 'confirmed' ? <Alert variant="success">Your email address is confirmed. Sign in to continue.</Alert> : null}
      {link === 'failed' ? (
        <Alert variant="error" title="This confirmation link has expired or was already used">
          <div className="grid gap-3">
            <p>If you confirmed your email already, sign in below. If not, get a new link:</p>
            <ResendConfirmation resend={resend} />
          </div>
        </Alert>
      ) : null}
      {initialError ? <Alert variant="error">{explain(initialError)}</Alert> : null}
      {method === 'password' ? <PasswordForm callbackUrl={callbackUrl} resend={resend} /> : <ApiKeyForm callbackUrl={callbackUrl} />}
      {method === 'password' ? <PasskeySignIn callbackUrl={callbackUrl} options={passkeyOptions} /> : null}
      <p className="text-center text-sm text-slate-700 dark:text-slate-300">
        {method === 'password' ? (
          <>
            Registered your tenant through the API?{' '}
            <Button variant="link" className="h-auto p-0" onClick={() => setMethod('api-key')}>
              Sign in with an API key
            </Button>
          </>
        ) : (
          <>
            Have an account?{' '}
            <Button variant="link" className="h-auto p-0" onClick={() => setMethod('password')}>
              Sign in with email and password
            </Button>
          </>
        )}
      </p>
    </div>
  );
}

function PasswordForm({ callbackUrl, resend }: { callbackUrl: string; resend: ResendConfirmationAction }) {
  const [error, setError] = useState<string>();
  const [unconfirmedEmail, setUnconfirmedEmail] = useState<string>();
  const form = useForm<z.infer<typeof passwordSchema>>({
    resolver: zodResolver(passwordSchema),
    defaultValues: { email: '', password: '' },
  });
  const { errors, isSubmitting } = form.formState;
  const onSubmit = form.handleSubmit(async (values) => {
    setError(undefined);
    setUnconfirmedEmail(undefined);
    const result = await signIn('password', { ...values, redirect: false });
    if (!result || result.error) {
      const message = result?.error ?? 'Sign-in failed; try again.';
      if (/not confirmed/i.test(message)) {
        setUnconfirmedEmail(values.email);
        return setError('Your email address is not confirmed yet: open the link we sent you, or get a new one below.');
      }
      return setError(explain(message));
    }
    window.location.assign(callbackUrl);
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h1">Sign in</CardTitle>
        <CardDescription>With the email and password of your account.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {unconfirmedEmail !== undefined ? <ResendConfirmation resend={resend} defaultEmail={unconfirmedEmail} /> : null}
        <form method="post" onSubmit={onSubmit} noValidate className="grid gap-4" aria-label="Sign in with email and password">
          {error ? <Alert variant="error">{error}</Alert> : null}
          <FormField label="Email" type="email" autoComplete="email" required error={errors.email?.message} {...form.register('email')} />
          <FormField
            label="Password"
            type="password"
            autoComplete="current-password"
            required
            error={errors.password?.message}
            {...form.register('password')}
          />
          <Button type="submit" loading={isSubmitting}>
            Sign in
          </Button>
          <div className="flex flex-wrap justify-between gap-2 text-sm">
            <Link className="text-indigo-700 underline-offset-4 hover:underline dark:text-indigo-300" href="/reset-password">
              Forgot your password?
            </Link>
            <Link className="text-indigo-700 underline-offset-4 hover:underline dark:text-indigo-300" href="/sign-up">
              Create an account
            </Link>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

function ApiKeyForm({ callbackUrl }: { callbackUrl: string }) {
  const [error, setError] = useState<string>();
  const form = useForm<z.infer<typeof apiKeySchema>>({ resolver: zodResolver(apiKeySchema), defaultValues: { apiKey: '' } });
  const { errors, isSubmitting } = form.formState;
  const onSubmit = form.handleSubmit(async (values) => {
    setError(undefined);
    const result = await signIn('api-key', { ...values, redirect: false });
    if (!result || result.error) return setError(explain(result?.error ?? 'Sign-in failed; try again.'));
    window.location.assign(callbackUrl);
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h1">Sign in with an API key</CardTitle>
        <CardDescription>
          For tenants registered through the API: use the key returned at registration (it holds the <code className="font-mono">*</code>{' '}
          scope).
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form method="post" onSubmit={onSubmit} noValidate className="grid gap-4" aria-label="Sign in with an API key">
          {error ? <Alert variant="error">{error}</Alert> : null}
          <FormField
            label="API key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder="amp_…"
            required
            description="The key stays in your encrypted session cookie; revoking it ends the session."
            error={errors.apiKey?.message}
            {...form.register('apiKey')}
          />
          <Button type="submit" loading={isSubmitting}>
            Sign in
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}

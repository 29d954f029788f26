'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { Link } from '@/components/ui/link';
import { signIn } from 'next-auth/react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import type { SignUpAction } from '@/client/actions';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { FormField } from '@/components/ui/form-field';
import { NEW_PASSWORD_HINT, newPasswordField } from '@/components/forms/fields';

const schema = z
  .object({
    email: z.email('Enter a valid email address.'),
    password: newPasswordField,
    confirm: z.string(),
  })
  .refine((v) => v.password === v.confirm, { path: ['confirm'], message: 'The passwords do not match.' });

/** `callbackUrl`: where to go once signed in (an invitation's page), instead of naming a new workspace. */
export function SignUpForm({ signUp, callbackUrl }: { signUp: SignUpAction; callbackUrl?: string }) {
  const [error, setError] = useState<string>();
  const [sent, setSent] = useState<string>();
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { email: '', password: '', confirm: '' } });
  const { errors, isSubmitting } = form.formState;
  const onSubmit = form.handleSubmit(async ({ email, password }) => {
    setError(undefined);
    const result = await signUp({ email, password, ...(callbackUrl ? { callbackUrl } : {}) });
    if (!result.ok) return setError(result.message);
    if (result.data?.confirm) return setSent(result.message);
    const signedIn = await signIn('password', { email, password, redirect: false });
    if (!signedIn || signedIn.error) return setError(signedIn?.error ?? 'Your account was created, but signing in failed: sign in below.');
    window.location.assign(callbackUrl ?? '/welcome');
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h1">Create an account</CardTitle>
        <CardDescription>
          {callbackUrl
            ? 'One account per person; next, you accept your invitation.'
            : 'One account per person; next, you name your workspace.'}
        </CardDescription>
      </CardHeader>
      <CardContent>
        {sent ? (
          <Alert variant="success" title="Check your inbox">
            {sent}
          </Alert>
        ) : (
          <form method="post" onSubmit={onSubmit} noValidate className="grid gap-4" aria-label="Create an account">
            {error ? <Alert variant="error">{error}</Alert> : null}
            <FormField label="Email" type="email" autoComplete="email" required error={errors.email?.message} {...form.register('email')} />
            <FormField
              label="Password"
              type="password"
              autoComplete="new-password"
              required
              description={NEW_PASSWORD_HINT}
              error={errors.password?.message}
              {...form.register('password')}
            />
            <FormField
              label="Confirm password"
              type="password"
              autoComplete="new-password"
              required
              error={errors.confirm?.message}
              {...form.register('confirm')}
            />
            <Button type="submit" loading={isSubmitting}>
              Create account
            </Button>
          </form>
        )}
      </CardContent>
      <CardFooter>
        <span className="text-slate-700 dark:text-slate-300">Already have an account?</span>
        <Link
          className="text-indigo-700 underline-offset-4 hover:underline dark:text-indigo-300"
          href={callbackUrl ? `/sign-in?callbackUrl=${encodeURIComponent(callbackUrl)}` : '/sign-in'}
        >
          Sign in
        </Link>
      </CardFooter>
    </Card>
  );
}

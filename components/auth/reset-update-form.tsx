'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { Link } from '@/components/ui/link';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import type { UpdatePasswordWithRecoveryAction } from '@/client/actions';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { FormField } from '@/components/ui/form-field';
import { NEW_PASSWORD_HINT, newPasswordField } from '@/components/forms/fields';

const schema = z
  .object({
    password: newPasswordField,
    confirm: z.string(),
  })
  .refine((v) => v.password === v.confirm, { path: ['confirm'], message: 'The passwords do not match.' });

type RecoveryLink = { state: 'reading' } | { state: 'ready'; accessToken: string } | { state: 'invalid'; message: string };

/**
 * The recovery link's redirect carries the session in the URL fragment (as Supabase's does):
 * `#access_token=…&type=recovery`, or `#error=…&error_description=…`. The fragment never reaches
 * a server; it is read here, then removed from the address bar and the history.
 */
function readFragment(): RecoveryLink {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  if (window.location.hash) window.history.replaceState(null, '', window.location.pathname);
  const description = params.get('error_description') ?? params.get('error');
  if (description) return { state: 'invalid', message: description.replaceAll('+', ' ') };
  const accessToken = params.get('access_token');
  if (!accessToken || params.get('type') !== 'recovery')
    return { state: 'invalid', message: 'Open this page from the link in your password reset message.' };
  return { state: 'ready', accessToken };
}

export function ResetUpdateForm({ updatePasswordWithRecovery }: { updatePasswordWithRecovery: UpdatePasswordWithRecoveryAction }) {
  const [link, setLink] = useState<RecoveryLink>({ state: 'reading' });
  const [result, setResult] = useState<{ ok: boolean; message: string }>();
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { password: '', confirm: '' } });
  const { errors, isSubmitting } = form.formState;
  // The fragment exists only in the browser: read it once, after hydration.
  useEffect(() => setLink(readFragment()), []);
  const onSubmit = form.handleSubmit(async ({ password }) => {
    if (link.state !== 'ready') return;
    setResult(await updatePasswordWithRecovery({ accessToken: link.accessToken, password }));
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h1">Choose a new password</CardTitle>
        <CardDescription>The link you followed lets you set a new password once.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {link.state === 'invalid' ? (
          <Alert variant="error" title="This link cannot be used">
            {link.message}{' '}
            <Link className="font-medium underline" href="/reset-password">
              Request a new link
            </Link>
            .
          </Alert>
        ) : result?.ok ? (
          <Alert variant="success" title="Password changed">
            {result.message}{' '}
            <Link className="font-medium underline" href="/sign-in">
              Sign in
            </Link>
          </Alert>
        ) : (
          <form method="post" onSubmit={onSubmit} noValidate className="grid gap-4" aria-label="Set a new password">
            {result ? <Alert variant="error">{result.message}</Alert> : null}
            <FormField
              label="New password"
              type="password"
              autoComplete="new-password"
              required
              description={NEW_PASSWORD_HINT}
              error={errors.password?.message}
              {...form.register('password')}
            />
            <FormField
              label="Confirm new password"
              type="password"
              autoComplete="new-password"
              required
              error={errors.confirm?.message}
              {...form.register('confirm')}
            />
            <Button type="submit" loading={isSubmitting} disabled={link.state !== 'ready'}>
              Set new password
            </Button>
          </form>
        )}
      </CardContent>
    </Card>
  );
}

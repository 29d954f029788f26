'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { Link } from '@/components/ui/link';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import type { AccountActions } from '@/client/actions';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { Copyable } from '@/components/ui/copyable';
import { FormField } from '@/components/ui/form-field';
import { atMostCharacters } from '@/components/forms/fields';
import { TENANT_NAME_MAX_LENGTH } from '@/src/contract/limits';

const schema = z.object({
  agentName: z.string().trim().min(1, 'Name your workspace.').max(TENANT_NAME_MAX_LENGTH, atMostCharacters(TENANT_NAME_MAX_LENGTH)),
});

const goToDashboard = () => window.location.assign('/dashboard');

/**
 * The one question after sign-up: the workspace's name. Creating it shows its first API key once,
 * then goes on to the overview, whose getting-started takes over.
 */
export function WelcomeForm({ createTenant, operator }: { createTenant: AccountActions['createTenant']; operator: boolean }) {
  const [apiKey, setApiKey] = useState<string>();
  const [error, setError] = useState<string>();
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { agentName: '' } });
  const onSubmit = form.handleSubmit(async (values) => {
    setError(undefined);
    const result = await createTenant(values);
    if (!result.ok) return setError(result.message);
    if (result.data?.apiKey) setApiKey(result.data.apiKey);
    else goToDashboard();
  });

  return (
    <Card className="mx-auto w-full max-w-xl">
      <CardHeader>
        <CardTitle as="h1">{apiKey ? 'Your workspace is ready' : 'Name your workspace'}</CardTitle>
        <CardDescription>
          {apiKey
            ? 'This is its first API key. It is shown only once: store it now, in a password manager or your agent’s secrets.'
            : 'Your workspace holds your API keys, modules, usage and invoices. Give it the name of your agent or your team.'}
        </CardDescription>
      </CardHeader>
      <CardContent>
        {apiKey ? (
          <div className="grid gap-4">
            <Copyable value={apiKey} label="API key" testId="new-api-key" />
            <div>
              <Button onClick={goToDashboard}>Go to the dashboard</Button>
            </div>
          </div>
        ) : (
          <form onSubmit={onSubmit} noValidate className="grid gap-4" aria-label="Name your workspace">
            {error ? <Alert variant="error">{error}</Alert> : null}
            <FormField
              label="Workspace name"
              autoComplete="organization"
              placeholder="Acme support agent"
              required
              autoFocus
              error={form.formState.errors.agentName?.message}
              {...form.register('agentName')}
            />
            <div>
              <Button type="submit" loading={form.formState.isSubmitting}>
                Create workspace
              </Button>
            </div>
          </form>
        )}
      </CardContent>
      {apiKey ? null : (
        <CardFooter className="grid gap-1 text-sm">
          <p className="text-slate-700 dark:text-slate-300">
            Already registered one through the API?{' '}
            <Link className="font-medium text-indigo-700 underline dark:text-indigo-300" href="/account">
              Link it with its API key
            </Link>
          </p>
          {operator ? (
            <p className="text-slate-700 dark:text-slate-300">
              You operate this service:{' '}
              <Link className="font-medium text-indigo-700 underline dark:text-indigo-300" href="/dashboard/admin">
                go to Admin
              </Link>{' '}
              without a workspace.
            </p>
          ) : null}
        </CardFooter>
      )}
    </Card>
  );
}

'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { Link } from '@/components/ui/link';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import type { RequestPasswordResetAction } from '@/client/actions';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { FormField } from '@/components/ui/form-field';

const schema = z.object({ email: z.email('Enter a valid email address.') });

export function ResetRequestForm({ requestPasswordReset }: { requestPasswordReset: RequestPasswordResetAction }) {
  const [result, setResult] = useState<{ ok: boolean; message: string }>();
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { email: '' } });
  const { errors, isSubmitting } = form.formState;
  const onSubmit = form.handleSubmit(async (values) => setResult(await requestPasswordReset(values)));
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h1">Reset your password</CardTitle>
        <CardDescription>We send a link to choose a new password.</CardDescription>
      </CardHeader>
      <CardContent>
        {result?.ok ? (
          <Alert variant="success" title="Link sent">
            {result.message}
          </Alert>
        ) : (
          <form method="post" onSubmit={onSubmit} noValidate className="grid gap-4" aria-label="Request a password reset link">
            {result ? <Alert variant="error">{result.message}</Alert> : null}
            <FormField label="Email" type="email" autoComplete="email" required error={errors.email?.message} {...form.register('email')} />
            <Button type="submit" loading={isSubmitting}>
              Send reset link
            </Button>
          </form>
        )}
      </CardContent>
      <CardFooter>
        <Link className="text-indigo-700 underline-offset-4 hover:underline dark:text-indigo-300" href="/sign-in">
          Back to sign in
        </Link>
      </CardFooter>
    </Card>
  );
}

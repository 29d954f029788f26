'use client';

import { useId, useState } from 'react';
import type { ResendConfirmationAction } from '@/client/actions';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';

/** Asks for a new confirmation link: the way out of an expired link or an unconfirmed sign-in. */
export function ResendConfirmation({ resend, defaultEmail = '' }: { resend: ResendConfirmationAction; defaultEmail?: string }) {
  const id = useId();
  const [email, setEmail] = useState(defaultEmail);
  const [sending, setSending] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string }>();
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setSending(true);
    setResult(await resend({ email }).catch(() => ({ ok: false, message: 'Something went wrong; try again in a moment.' })));
    setSending(false);
  };
  return (
    <form method="post" onSubmit={(e) => void submit(e)} className="grid gap-2" aria-label="Send a new confirmation link">
      <Label htmlFor={id}>Email</Label>
      <div className="flex flex-wrap gap-2">
        <Input
          id={id}
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          className="min-w-0 flex-1"
        />
        <Button type="submit" variant="secondary" loading={sending}>
          Send a new link
        </Button>
      </div>
      {result ? (
        <p role="status" className={result.ok ? 'text-sm text-slate-700 dark:text-slate-300' : 'text-sm text-red-700 dark:text-red-400'}>
          {result.message}
        </p>
      ) : null}
    </form>
  );
}

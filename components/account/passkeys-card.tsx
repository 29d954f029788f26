'use client';

import { startRegistration, WebAuthnError, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { KeyRound } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { toast } from 'sonner';
import type { PasskeyActions, PasskeyView } from '@/client/actions';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { FormField } from '@/components/ui/form-field';

/** What went wrong in the browser's ceremony, as a person would say it. */
export function ceremonyMessage(err: unknown): string {
  if (err instanceof WebAuthnError && err.code === 'ERROR_CEREMONY_ABORTED') return 'Cancelled.';
  if (err instanceof Error && err.name === 'NotAllowedError') return 'The passkey prompt was closed or timed out; try again.';
  if (err instanceof Error && /not supported|WebAuthn/i.test(err.message)) return 'This browser cannot use passkeys.';
  return 'The passkey could not be used; try again.';
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'Never');

/** The account page's passkeys: add one (named), see when each was last used, remove one. */
export function PasskeysCard({ actions }: { actions: PasskeyActions }) {
  const [passkeys, setPasskeys] = useState<PasskeyView[]>();
  const [error, setError] = useState<string>();
  const [name, setName] = useState('');
  const [adding, setAdding] = useState(false);

  const load = useCallback(async () => {
    const result = await actions.listPasskeys();
    if (result.ok) setPasskeys(result.data ?? []);
    else setError(result.message);
  }, [actions]);
  useEffect(() => {
    void load();
  }, [load]);

  async function add() {
    setError(undefined);
    const label = name.trim() || 'Passkey';
    setAdding(true);
    try {
      const options = await actions.passkeyRegistrationOptions();
      if (!options.ok || !options.data) return setError(options.message);
      let response;
      try {
        response = await startRegistration({ optionsJSON: options.data.options as PublicKeyCredentialCreationOptionsJSON });
      } catch (err) {
        return setError(ceremonyMessage(err));
      }
      const added = await actions.addPasskey({ challengeId: options.data.challengeId, response, name: label });
      if (!added.ok) return setError(added.message);
      toast.success(added.message);
      setName('');
      await load();
    } finally {
      setAdding(false);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Passkeys</CardTitle>
        <CardDescription>
          Sign in with your fingerprint, face or device PIN instead of your password. Your password keeps working.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {error ? <Alert variant="error">{error}</Alert> : null}
        {passkeys === undefined ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">Loading your passkeys…</p>
        ) : passkeys.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">No passkeys yet.</p>
        ) : (
          <ul className="grid gap-2" aria-label="Your passkeys">
            {passkeys.map((p) => (
              <li
                key={p.id}
                className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-slate-200 p-3 dark:border-slate-700"
              >
                <div className="flex items-center gap-2">
                  <KeyRound aria-hidden="true" className="size-4 text-slate-500" />
                  <div>
                    <p className="font-medium">{p.name}</p>
                    <p className="text-xs text-slate-600 dark:text-slate-400">
                      Added {when(p.created_at)} · last used {when(p.last_used_at)}
                      {p.backed_up ? ' · synced' : ''}
                    </p>
                  </div>
                </div>
                <ConfirmDialog
                  trigger={
                    <Button variant="secondary" size="sm">
                      Remove<span className="sr-only"> passkey {p.name}</span>
                    </Button>
                  }
                  title={`Remove the passkey “${p.name}”?`}
                  description="You will no longer be able to sign in with it. Your password and other passkeys keep working."
                  confirmLabel="Remove passkey"
                  onConfirm={async () => {
                    const removed = await actions.removePasskey({ id: p.id });
                    if (!removed.ok) throw new Error(removed.message);
                    toast.success(removed.message);
                    await load();
                  }}
                />
              </li>
            ))}
          </ul>
        )}
        <form
          className="flex flex-wrap items-end gap-3"
          aria-label="Add a passkey"
          onSubmit={(e) => {
            e.preventDefault();
            void add();
          }}
        >
          <div className="min-w-48 flex-1">
            <FormField
              label="Passkey name"
              description="To tell your devices apart, e.g. “Work laptop”."
              maxLength={64}
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <Button type="submit" loading={adding}>
            Add a passkey
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}

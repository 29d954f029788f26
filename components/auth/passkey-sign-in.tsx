'use client';

import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { KeyRound } from 'lucide-react';
import { signIn } from 'next-auth/react';
import { useState } from 'react';
import type { PasskeySignInOptionsAction } from '@/client/actions';
import { ceremonyMessage } from '@/components/account/passkeys-card';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';

/** "Sign in with a passkey": the browser's WebAuthn prompt, then the same session as a password's. */
export function PasskeySignIn({ callbackUrl, options }: { callbackUrl: string; options: PasskeySignInOptionsAction }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function run() {
    setError(undefined);
    setBusy(true);
    try {
      const challenge = await options();
      if (!challenge.ok || !challenge.data) return setError(challenge.message);
      let response;
      try {
        response = await startAuthentication({ optionsJSON: challenge.data.options as PublicKeyCredentialRequestOptionsJSON });
      } catch (err) {
        return setError(ceremonyMessage(err));
      }
      const result = await signIn('passkey', {
        challengeId: challenge.data.challengeId,
        response: JSON.stringify(response),
        redirect: false,
      });
      if (!result || result.error)
        return setError('That passkey was not accepted. Sign in with your password, then add the passkey again on your account page.');
      window.location.assign(callbackUrl);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="grid gap-3">
      {error ? <Alert variant="error">{error}</Alert> : null}
      <Button variant="secondary" onClick={() => void run()} loading={busy}>
        <KeyRound aria-hidden="true" className="size-4" />
        Sign in with a passkey
      </Button>
    </div>
  );
}

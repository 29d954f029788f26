'use client';

import { signOut } from 'next-auth/react';
import { useState } from 'react';
import { Button, type ButtonProps } from './ui/button';

/** Ends the dashboard session (and the identity provider's session behind it), then goes home. */
export function SignOutButton({ callbackUrl = '/', children = 'Sign out', ...props }: ButtonProps & { callbackUrl?: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <Button
      variant="secondary"
      size="sm"
      loading={busy}
      onClick={() => {
        setBusy(true);
        // Stays on the origin the user is on: next-auth's own redirect goes to the configured base
        // URL (http://localhost:3000 by default), which may be another host than the one in use.
        void signOut({ redirect: false }).then(() => window.location.assign(callbackUrl));
      }}
      {...props}
    >
      {children}
    </Button>
  );
}

'use client';

import { Link } from '@/components/ui/link';
import { SignOutButton } from '@/components/sign-out-button';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';

export function SignOutConfirm({ signedIn }: { signedIn: boolean }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h1">{signedIn ? 'Sign out' : 'You are signed out'}</CardTitle>
        <CardDescription>
          {signedIn ? 'This ends your dashboard session on this browser.' : 'Your dashboard session has ended on this browser.'}
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-wrap gap-3">
        {signedIn ? (
          <>
            <SignOutButton size="default" variant="default" callbackUrl="/sign-out">
              Sign out
            </SignOutButton>
            <Button asChild variant="secondary">
              <Link href="/account">Stay signed in</Link>
            </Button>
          </>
        ) : (
          <Button asChild>
            <Link href="/sign-in">Sign in again</Link>
          </Button>
        )}
      </CardContent>
    </Card>
  );
}

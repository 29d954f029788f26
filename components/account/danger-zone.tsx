'use client';

import { Download } from 'lucide-react';
import { signOut } from 'next-auth/react';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { trpc } from '@/client/trpc/client';
import { leavingPage } from '@/client/trpc/react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : 'The request failed.');

/** Saves the tenant's export as a JSON file. */
async function downloadExport(): Promise<void> {
  const data = await trpc.tenants.export.query({});
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `${data.tenant.agent_name.replace(/[^\w.-]+/g, '-')}-export-${data.exported_at.slice(0, 10)}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The account page's export and deletions: the owner exports and deletes the tenant (typing its
 * name); a signed-in person deletes its account (typing its email).
 */
export function DangerZone({ tenantName, isOwner, email }: { tenantName: string | null; isOwner: boolean; email: string | null }) {
  const id = useId();
  const [exporting, setExporting] = useState(false);
  const [typedName, setTypedName] = useState('');
  const [typedEmail, setTypedEmail] = useState('');
  const [error, setError] = useState<string>();

  return (
    <Card>
      <CardHeader>
        <CardTitle>Your data</CardTitle>
        <CardDescription>Export what this tenant holds, or delete the tenant or your account.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        {error ? <Alert variant="error">{error}</Alert> : null}
        {tenantName && isOwner ? (
          <>
            <section className="grid gap-2" aria-labelledby={`${id}-export`}>
              <h3 id={`${id}-export`} className="font-medium">
                Export the tenant&apos;s data
              </h3>
              <p className="text-sm text-slate-600 dark:text-slate-400">
                One JSON file: members, keys (never their secrets), webhooks, executions, memory, workflows, invoices and the audit log.
              </p>
              <Button
                variant="secondary"
                className="justify-self-start"
                loading={exporting}
                onClick={async () => {
                  setExporting(true);
                  setError(undefined);
                  try {
                    await downloadExport();
                  } catch (err) {
                    setError(messageOf(err));
                  } finally {
                    setExporting(false);
                  }
                }}
              >
                <Download aria-hidden="true" className="size-4" />
                Export data
              </Button>
            </section>
            <section className="grid gap-2" aria-labelledby={`${id}-delete-tenant`}>
              <h3 id={`${id}-delete-tenant`} className="font-medium">
                Delete the tenant
              </h3>
              <p className="text-sm text-slate-600 dark:text-slate-400">
                Every API key stops at once, webhooks stop and nobody can use the tenant any more. Its data is kept for 30 days (write to
                the platform&apos;s operator to undo it), then deleted; invoices are kept as the law requires.
              </p>
              <div className="grid gap-2 sm:max-w-sm">
                <Label htmlFor={`${id}-tenant-name`}>Type “{tenantName}” to confirm</Label>
                <Input id={`${id}-tenant-name`} value={typedName} autoComplete="off" onChange={(e) => setTypedName(e.target.value)} />
              </div>
              <ConfirmDialog
                trigger={
                  <Button variant="destructive" className="justify-self-start" disabled={typedName !== tenantName}>
                    Delete tenant
                  </Button>
                }
                title={`Delete ${tenantName}?`}
                description="Its keys stop working now and its members lose access. After 30 days its data is gone for good."
                confirmLabel="Delete tenant"
                onConfirm={async () => {
                  await removeThenLeave(() => trpc.tenants.delete.mutate({ confirm: typedName }));
                  toast.success(`${tenantName} is deleted.`);
                  window.location.assign('/account');
                }}
              />
            </section>
          </>
        ) : null}
        {email ? (
          <section className="grid gap-2" aria-labelledby={`${id}-delete-account`}>
            <h3 id={`${id}-delete-account`} className="font-medium">
              Delete your account
            </h3>
            <p className="text-sm text-slate-600 dark:text-slate-400">
              You leave every tenant you belong to, and tenants you own alone are deleted with your account. If you own a tenant with other
              members, transfer its ownership first.
            </p>
            <div className="grid gap-2 sm:max-w-sm">
              <Label htmlFor={`${id}-email`}>Type your email to confirm</Label>
              <Input
                id={`${id}-email`}
                type="email"
                value={typedEmail}
                autoComplete="off"
                onChange={(e) => setTypedEmail(e.target.value)}
              />
            </div>
            <ConfirmDialog
              trigger={
                <Button variant="destructive" className="justify-self-start" disabled={typedEmail.trim().toLowerCase() !== email}>
                  Delete account
                </Button>
              }
              title="Delete your account?"
              description="You are signed out, and you cannot sign in with this account again."
              confirmLabel="Delete account"
              onConfirm={async () => {
                await removeThenLeave(() => trpc.auth.deleteAccount.mutate({ confirm: typedEmail.trim() }));
                await signOut({ redirect: false });
                window.location.assign('/');
              }}
            />
          </section>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** Runs a removal the page leaves after, with the page marked as leaving (see leavingPage). */
async function removeThenLeave(remove: () => Promise<unknown>): Promise<void> {
  leavingPage();
  try {
    await remove();
  } catch (err) {
    leavingPage(false);
    throw err;
  }
}

'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import type { AccountActions, PasskeyActions } from '@/client/actions';
import type { DashboardSessionView } from '@/client/session';
import { statusOf, type trpc } from '@/client/trpc/client';
import { useTRPC } from '@/client/trpc/react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Copyable } from '@/components/ui/copyable';
import { atMostCharacters, NEW_PASSWORD_HINT, newPasswordField } from '@/components/forms/fields';
import { FormField } from '@/components/ui/form-field';
import { TENANT_NAME_MAX_LENGTH } from '@/src/contract/limits';
import { DangerZone } from './danger-zone';
import { PasskeysCard } from './passkeys-card';

type Me = Awaited<ReturnType<typeof trpc.tenants.me.query>>;
type TenantState =
  { state: 'loading' } | { state: 'ready'; me: Me } | { state: 'none'; message: string } | { state: 'error'; message: string };

/** The signed-in person's role in this tenant, as the roles table names it (docs: organizations). */
function roleLabel(session: DashboardSessionView, role: string | null): string {
  const inTenant = role
    ? `${role.charAt(0).toUpperCase()}${role.slice(1)} of this tenant`
    : session.kind === 'api_key'
      ? 'API key holder (scope *)'
      : 'No tenant yet';
  return session.admin ? `Operator · ${inTenant}` : inTenant;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : 'The request failed.');

/** What the tenant card shows: a password session's user who owns no tenant yet gets a 401 from the API. */
function tenantState(me: { data?: Me; error: unknown; isError: boolean }, session: DashboardSessionView): TenantState {
  if (me.data) return { state: 'ready', me: me.data };
  if (!me.isError) return { state: 'loading' };
  if (statusOf(me.error) === 401 && session.kind === 'password') return { state: 'none', message: messageOf(me.error) };
  return { state: 'error', message: messageOf(me.error) };
}

export function AccountView({
  session,
  actions,
  passkeys,
}: {
  session: DashboardSessionView;
  actions: AccountActions;
  passkeys: PasskeyActions;
}) {
  // The same cache entries as every dashboard page (prefetched with the page, app/(dashboard)/layout.tsx).
  const trpcQuery = useTRPC();
  const queryClient = useQueryClient();
  const me = useQuery(trpcQuery.tenants.me.queryOptions({}));
  const caller = useQuery({ ...trpcQuery.members.me.queryOptions({}), enabled: me.isSuccess });
  const tenant = tenantState(me, session);
  const role = caller.data?.role ?? null;
  const tenantName = caller.data?.memberships.find((m) => m.tenant_id === caller.data.tenant_id)?.agent_name ?? null;
  const load = async () => {
    await queryClient.invalidateQueries({ queryKey: trpcQuery.tenants.me.queryKey() });
    await queryClient.invalidateQueries({ queryKey: trpcQuery.members.me.queryKey() });
  };

  return (
    <div className="grid gap-6">
      <Card>
        <CardHeader>
          <CardTitle>Profile</CardTitle>
          <CardDescription>How you are signed in to the dashboard.</CardDescription>
        </CardHeader>
        <CardContent>
          <dl className="grid gap-3 text-sm sm:grid-cols-[10rem_1fr]">
            <dt className="font-medium text-slate-600 dark:text-slate-400">Email</dt>
            <dd data-testid="account-email">{session.email ?? 'None (signed in with an API key)'}</dd>
            <dt className="font-medium text-slate-600 dark:text-slate-400">Sign-in method</dt>
            <dd>{session.kind === 'password' ? 'Email and password' : 'API key (scope *)'}</dd>
            <dt className="font-medium text-slate-600 dark:text-slate-400">Role</dt>
            <dd data-testid="account-role">{roleLabel(session, role)}</dd>
          </dl>
        </CardContent>
      </Card>

      <TenantCard tenant={tenant} session={session} actions={actions} onChanged={load} />

      {session.kind === 'password' ? <ChangePasswordCard changePassword={actions.changePassword} /> : null}

      {session.kind === 'password' ? <PasskeysCard actions={passkeys} /> : null}

      <DangerZone
        tenantName={tenant.state === 'ready' ? tenantName : null}
        isOwner={role === 'owner'}
        email={session.kind === 'password' ? session.email : null}
      />
    </div>
  );
}

function TenantCard({
  tenant,
  session,
  actions,
  onChanged,
}: {
  tenant: TenantState;
  session: DashboardSessionView;
  actions: AccountActions;
  onChanged: () => Promise<void>;
}) {
  return (
    <Card aria-busy={tenant.state === 'loading'}>
      <CardHeader>
        <CardTitle>Tenant</CardTitle>
        <CardDescription>The tenant this dashboard acts for.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {tenant.state === 'loading' ? (
          <div className="grid gap-2" aria-hidden="true">
            <div className="h-4 w-2/3 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
            <div className="h-4 w-1/3 animate-pulse rounded bg-slate-200 dark:bg-slate-800" />
          </div>
        ) : tenant.state === 'ready' ? (
          <dl className="grid gap-3 text-sm sm:grid-cols-[10rem_1fr]" data-testid="tenant-details">
            <dt className="font-medium text-slate-600 dark:text-slate-400">Tenant ID</dt>
            <dd className="font-mono text-xs break-all" data-testid="tenant-id">
              {tenant.me.tenant_id}
            </dd>
            <dt className="font-medium text-slate-600 dark:text-slate-400">Plan</dt>
            <dd className="capitalize" data-testid="tenant-plan">
              {tenant.me.plan}
            </dd>
            <dt className="font-medium text-slate-600 dark:text-slate-400">Executions / month</dt>
            <dd>{tenant.me.limits.executions_per_month?.toLocaleString('en-US') ?? 'Unlimited'}</dd>
            <dt className="font-medium text-slate-600 dark:text-slate-400">Requests / minute</dt>
            <dd>{tenant.me.requests_per_minute.toLocaleString('en-US')}</dd>
          </dl>
        ) : tenant.state === 'error' ? (
          <Alert variant="error">{tenant.message}</Alert>
        ) : (
          <NoTenant message={tenant.message} email={session.email} actions={actions} onChanged={onChanged} />
        )}
      </CardContent>
    </Card>
  );
}

const createSchema = z.object({
  agentName: z.string().trim().min(1, 'Name your tenant.').max(TENANT_NAME_MAX_LENGTH, atMostCharacters(TENANT_NAME_MAX_LENGTH)),
});
const linkSchema = z.object({ apiKey: z.string().trim().min(1, 'Enter the API key.') });

function NoTenant({
  message,
  email,
  actions,
  onChanged,
}: {
  message: string;
  email: string | null;
  actions: AccountActions;
  onChanged: () => Promise<void>;
}) {
  const [created, setCreated] = useState<{ apiKey?: string }>();
  const [createError, setCreateError] = useState<string>();
  const [linkError, setLinkError] = useState<string>();
  const createForm = useForm<z.infer<typeof createSchema>>({ resolver: zodResolver(createSchema), defaultValues: { agentName: '' } });
  const linkForm = useForm<z.infer<typeof linkSchema>>({ resolver: zodResolver(linkSchema), defaultValues: { apiKey: '' } });

  const onCreate = createForm.handleSubmit(async (values) => {
    setCreateError(undefined);
    const result = await actions.createTenant(values);
    if (!result.ok) return setCreateError(result.message);
    setCreated({ apiKey: result.data?.apiKey });
    if (!result.data?.apiKey) await onChanged();
  });
  const onLink = linkForm.handleSubmit(async (values) => {
    setLinkError(undefined);
    const result = await actions.linkTenant(values);
    if (!result.ok) return setLinkError(result.message);
    await onChanged();
  });

  if (created?.apiKey) {
    return (
      <div className="grid gap-3">
        <Alert variant="success" title="Your tenant is ready">
          This is its API key (scope <code>*</code>). It is shown only once: store it now.
        </Alert>
        <Copyable value={created.apiKey} label="API key" testId="new-api-key" />
        <div>
          <Button onClick={() => void onChanged()}>Continue</Button>
        </div>
      </div>
    );
  }
  return (
    <div className="grid gap-6">
      <Alert title="No tenant yet">
        {email ? `${email} is linked to no tenant.` : 'Your account is linked to no tenant.'} Create one, or link the tenant you registered
        through the API.
        <span className="sr-only"> {message}</span>
      </Alert>
      <form onSubmit={onCreate} noValidate className="grid gap-3" aria-labelledby="create-tenant-heading">
        <h3 id="create-tenant-heading" className="font-semibold">
          Create a tenant
        </h3>
        {createError ? <Alert variant="error">{createError}</Alert> : null}
        <FormField
          label="Agent name"
          autoComplete="organization"
          required
          description="Shown in your tenant's details; you can register modules under it."
          error={createForm.formState.errors.agentName?.message}
          {...createForm.register('agentName')}
        />
        <div>
          <Button type="submit" loading={createForm.formState.isSubmitting}>
            Create tenant
          </Button>
        </div>
      </form>
      <form
        method="post"
        onSubmit={onLink}
        noValidate
        className="grid gap-3 border-t border-slate-200 pt-6 dark:border-slate-800"
        aria-labelledby="link-tenant-heading"
      >
        <h3 id="link-tenant-heading" className="font-semibold">
          Link an existing tenant with its API key
        </h3>
        {linkError ? <Alert variant="error">{linkError}</Alert> : null}
        <FormField
          label="API key of the tenant"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="amp_…"
          required
          description="A key of that tenant holding the * scope proves you own it; it is used once and not stored."
          error={linkForm.formState.errors.apiKey?.message}
          {...linkForm.register('apiKey')}
        />
        <div>
          <Button type="submit" variant="secondary" loading={linkForm.formState.isSubmitting}>
            Link tenant
          </Button>
        </div>
      </form>
    </div>
  );
}

const passwordSchema = z
  .object({
    currentPassword: z.string().min(1, 'Enter your current password.'),
    newPassword: newPasswordField,
    confirm: z.string(),
  })
  .refine((v) => v.newPassword === v.confirm, { path: ['confirm'], message: 'The passwords do not match.' });

function ChangePasswordCard({ changePassword }: { changePassword: AccountActions['changePassword'] }) {
  const [result, setResult] = useState<{ ok: boolean; message: string }>();
  const form = useForm<z.infer<typeof passwordSchema>>({
    resolver: zodResolver(passwordSchema),
    defaultValues: { currentPassword: '', newPassword: '', confirm: '' },
  });
  const { errors, isSubmitting } = form.formState;
  const onSubmit = form.handleSubmit(async ({ currentPassword, newPassword }) => {
    const answer = await changePassword({ currentPassword, newPassword });
    setResult(answer);
    if (answer.ok) form.reset();
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle>Change password</CardTitle>
        <CardDescription>Confirm your current password, then choose the new one.</CardDescription>
      </CardHeader>
      <CardContent>
        <form method="post" onSubmit={onSubmit} noValidate className="grid gap-4 sm:max-w-md" aria-label="Change password">
          {result ? <Alert variant={result.ok ? 'success' : 'error'}>{result.message}</Alert> : null}
          <FormField
            label="Current password"
            type="password"
            autoComplete="current-password"
            required
            error={errors.currentPassword?.message}
            {...form.register('currentPassword')}
          />
          <FormField
            label="New password"
            type="password"
            autoComplete="new-password"
            required
            description={NEW_PASSWORD_HINT}
            error={errors.newPassword?.message}
            {...form.register('newPassword')}
          />
          <FormField
            label="Confirm new password"
            type="password"
            autoComplete="new-password"
            required
            error={errors.confirm?.message}
            {...form.register('confirm')}
          />
          <div>
            <Button type="submit" loading={isSubmitting}>
              Change password
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

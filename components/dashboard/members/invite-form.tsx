'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Send } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useId, useRef, type BaseSyntheticEvent, type SelectHTMLAttributes } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { useTRPC } from '@/client/trpc/react';
import type { RouterOutputs } from '@/client/trpc/types';
import { EMAIL_MAX_LENGTH } from '@/src/contract/limits';
import { ASSIGNABLE_ROLES, ROLE_DEFINITIONS, type Role } from '@/src/contract/roles';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { cn } from '@/components/ui/cn';
import { FormField } from '@/components/ui/form-field';
import { Label } from '@/components/ui/label';
import { atMostCharacters } from '@/components/forms/fields';
import { apiIssues, errorCode, errorMessage } from '@/components/dashboard/query-error';
import type { SentLink } from './members-view';

export const ROLE_LABEL: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  developer: 'Developer',
  billing: 'Billing',
  viewer: 'Viewer',
};

type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

/** A native select of roles (keyboard and screen readers as the platform does them). */
export function RoleSelect({
  value,
  roles,
  onChange,
  className,
  ...props
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, 'onChange' | 'value'> & {
  value: Role;
  roles: readonly AssignableRole[];
  onChange: (role: AssignableRole) => void;
}) {
  return (
    <select
      value={value}
      onChange={(e) => onChange(e.target.value as AssignableRole)}
      className={cn(
        'h-10 rounded-md border border-slate-400 bg-white px-2 text-sm text-slate-900 shadow-sm focus-visible:border-indigo-600 focus-visible:ring-2 focus-visible:ring-indigo-500/60 focus-visible:outline-none disabled:opacity-60 aria-invalid:border-red-600 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100',
        className,
      )}
      {...props}
    >
      {/* The owner's row shows its role as text: ownership moves only by transfer. */}
      {roles.map((r) => (
        <option key={r} value={r}>
          {ROLE_LABEL[r]}
        </option>
      ))}
    </select>
  );
}

const inviteSchema = z.object({
  email: z
    .string()
    .trim()
    .min(1, 'Enter their email address.')
    .max(EMAIL_MAX_LENGTH, atMostCharacters(EMAIL_MAX_LENGTH))
    .pipe(z.email('Enter an email address, like name@example.com.')),
  role: z.enum(ASSIGNABLE_ROLES),
});
type InviteValues = z.infer<typeof inviteSchema>;

/**
 * Invite someone: their email and a role (the API's assignable roles, each with its description).
 * The API's objections go under their field (an address already a member or invited, under the
 * email); a plan with no seat left says so in the form with the way to a larger plan.
 */
export function InviteForm({ roles, onSent }: { roles: { data?: RouterOutputs['members']['roles'] }; onSent: (sent: SentLink) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invite = useMutation(trpc.members.invite.mutationOptions());
  const form = useForm<InviteValues>({ resolver: zodResolver(inviteSchema), defaultValues: { email: '', role: 'developer' } });
  const roleId = useId();
  const alertRef = useRef<HTMLDivElement>(null);
  const role = form.watch('role');
  const assignable = roles.data?.data.filter((r) => r.assignable).map((r) => r.role as AssignableRole) ?? [...ASSIGNABLE_ROLES];
  const description = roles.data?.data.find((r) => r.role === role)?.description ?? ROLE_DEFINITIONS[role].description;
  const code = invite.isError ? errorCode(invite.error) : undefined;
  // A conflict names the address (already a member, already invited): it goes under the email.
  const underEmail = invite.isError && code === 'conflict' && /member|invit/i.test(errorMessage(invite.error));

  const submit = form.handleSubmit(async (values) => {
    try {
      const sent = await invite.mutateAsync({ email: values.email, role: values.role });
      onSent({ kind: 'invitation', email: sent.email, url: sent.accept_url, expiresAt: sent.expires_at });
      form.reset({ email: '', role: values.role });
      void queryClient.invalidateQueries({ queryKey: trpc.members.invitations.queryKey() });
    } catch (err) {
      let placed = false;
      for (const { path, message } of apiIssues(err)) {
        if (path === 'email' || path === 'role') {
          form.setError(path, { type: 'server', message });
          placed = true;
        }
      }
      if (placed) form.setFocus(apiIssues(err).some((i) => i.path === 'email') ? 'email' : 'role');
      else if (errorCode(err) === 'conflict' && /member|invit/i.test(errorMessage(err))) {
        form.setError('email', { type: 'server', message: errorMessage(err) });
        form.setFocus('email');
      } else requestAnimationFrame(() => alertRef.current?.scrollIntoView({ block: 'nearest' }));
    }
  });
  const onSubmit = (event?: BaseSyntheticEvent) => {
    invite.reset();
    return submit(event);
  };
  const fieldsTookIt = underEmail || apiIssues(invite.error).some((i) => i.path === 'email' || i.path === 'role');

  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-base">Invite someone</CardTitle>
        <CardDescription>They get a link to join this workspace with the role you choose. It works once, for 7 days.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={onSubmit} noValidate className="grid grid-cols-1 gap-4 sm:grid-cols-[minmax(0,1fr)_12rem] sm:items-start">
          {invite.isError && !fieldsTookIt ? (
            <div ref={alertRef} className="sm:col-span-2">
              <Alert variant="error" title={code === 'plan_required' ? 'No seat left on your plan' : 'The invitation was not sent'}>
                <p>{errorMessage(invite.error)}</p>
                {code === 'plan_required' ? (
                  <p className="mt-2">
                    <Link href="/dashboard/usage" className="font-medium underline underline-offset-2">
                      See your usage and change plan
                    </Link>
                  </p>
                ) : null}
              </Alert>
            </div>
          ) : null}
          <FormField
            label="Email"
            type="email"
            autoComplete="off"
            placeholder="name@example.com"
            required
            error={form.formState.errors.email?.message}
            {...form.register('email')}
          />
          <div className="grid gap-2">
            <Label htmlFor={roleId}>Role</Label>
            <RoleSelect
              id={roleId}
              value={role}
              roles={assignable}
              aria-describedby={`${roleId}-description`}
              onChange={(r) => form.setValue('role', r, { shouldValidate: form.formState.isSubmitted })}
            />
          </div>
          <p
            id={`${roleId}-description`}
            className="text-sm text-slate-700 sm:col-span-2 dark:text-slate-300"
            aria-live="polite"
            data-testid="role-description"
          >
            <span className="font-medium">{ROLE_LABEL[role]}:</span> {description}
          </p>
          <p className="text-sm font-medium text-red-700 empty:hidden sm:col-span-2 dark:text-red-400" aria-live="polite">
            {form.formState.errors.role?.message ?? ''}
          </p>
          <div className="sm:col-span-2">
            <Button type="submit" loading={invite.isPending}>
              <Send aria-hidden="true" className="size-4" />
              Send invitation
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

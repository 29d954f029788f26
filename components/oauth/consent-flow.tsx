'use client';

import { useEffect, useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { FormField } from '@/components/ui/form-field';

/** What GET /oauth/interaction/<uid> answers (src/server/oauth/interaction.ts). */
interface Details {
  uid: string;
  step: 'login' | 'consent';
  client: { client_id: string; client_name: string | null; client_uri: string | null; redirect_uri: string; metadata_document: boolean };
  resource: string;
  scopes: string[];
  account: { id: string; email: string } | null;
  tenant: { id: string; name: string } | null;
  account_page: string;
}

/** The API key scopes, as a person would read them. */
const SCOPE_TEXT: Record<string, string> = {
  'modules:read': 'List and read modules, tools and executions',
  'modules:execute': 'Run modules',
  'modules:install': 'Install and uninstall modules',
  'modules:write': 'Publish and change your own modules',
  'billing:read': 'Read usage and invoices',
  'keys:manage': 'Create, rotate and revoke API keys',
  'memory:read': 'Read agent memory',
  'memory:write': 'Write agent memory',
  '*': 'Everything above, plus webhooks and plan changes',
};

async function call(path: string, body?: unknown): Promise<{ ok: boolean; data: Record<string, unknown> }> {
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  return { ok: res.ok, data };
}

export function ConsentFlow({ uid }: { uid: string }) {
  const api = `/oauth/interaction/${encodeURIComponent(uid)}`;
  const [details, setDetails] = useState<Details>();
  const [fatal, setFatal] = useState<string>();

  useEffect(() => {
    let live = true;
    call(api)
      .then(({ ok, data }) => {
        if (!live) return;
        if (ok) setDetails(data as unknown as Details);
        else setFatal(String(data.message ?? 'This sign-in request cannot be shown.'));
      })
      .catch(() => live && setFatal('The server could not be reached.'));
    return () => {
      live = false;
    };
  }, [api]);

  if (fatal) {
    return (
      <>
        <h1 className="text-2xl font-semibold tracking-tight">Authorize an application</h1>
        <Alert variant="error">{fatal}</Alert>
      </>
    );
  }
  if (!details) {
    return (
      <>
        <h1 className="text-2xl font-semibold tracking-tight">Authorize an application</h1>
        <p role="status" className="text-sm text-slate-700 dark:text-slate-300">
          Loading the request…
        </p>
      </>
    );
  }
  const name = details.client.client_name ?? details.client.client_id;
  return (
    <>
      <h1 className="text-2xl font-semibold tracking-tight [overflow-wrap:anywhere]">Authorize {name}</h1>
      <ClientSummary details={details} />
      {details.step === 'login' ? <LoginForm api={api} onDone={setDetails} /> : <ConsentForm api={api} details={details} />}
    </>
  );
}

/** What the client will reach: the MCP server (an agent's tools) or the whole API (a command line, a script). */
function reaches(resource: string): { who: string; what: string } {
  return resource.endsWith('/api/mcp')
    ? { who: 'An MCP client', what: 'The MCP server: the modules your agents use as tools' }
    : { who: 'An application', what: 'The API: everything your role allows, within the permissions below' };
}

function ClientSummary({ details }: { details: Details }) {
  const { who, what } = reaches(details.resource);
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-base">{who} asks for access to your tenant</CardTitle>
        <CardDescription>Only continue if you started this from an application you trust.</CardDescription>
      </CardHeader>
      <CardContent>
        <dl className="grid gap-2 text-sm">
          <div>
            <dt className="font-medium">Client</dt>
            <dd className="wrap-anywhere text-slate-700 dark:text-slate-300">
              {details.client.client_name ? `${details.client.client_name} — ` : null}
              <code className="font-mono">{details.client.client_id}</code>
            </dd>
          </div>
          <div>
            <dt className="font-medium">Returns to</dt>
            <dd className="wrap-anywhere text-slate-700 dark:text-slate-300">
              <code className="font-mono">{details.client.redirect_uri}</code>
            </dd>
          </div>
          <div>
            <dt className="font-medium">Reaches</dt>
            <dd className="text-slate-700 dark:text-slate-300">
              {what} (<code className="break-all font-mono">{details.resource}</code>)
            </dd>
          </div>
        </dl>
      </CardContent>
    </Card>
  );
}

function LoginForm({ api, onDone }: { api: string; onDone: (d: Details) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { ok, data } = await call(`${api}/login`, { email, password });
      if (ok) onDone(data as unknown as Details);
      else setError(String(data.message ?? 'Those credentials were not accepted.'));
    } catch {
      setError('The server could not be reached.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card>
      <form method="post" onSubmit={submit} noValidate>
        <CardHeader>
          <CardTitle className="text-base">Sign in</CardTitle>
          <CardDescription>With the email and password of your account on this platform.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">
          {error ? <Alert variant="error">{error}</Alert> : null}
          <FormField
            label="Email"
            name="email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <FormField
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </CardContent>
        <CardFooter>
          <Button type="submit" loading={busy} className="w-full">
            Sign in
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}

function ConsentForm({ api, details }: { api: string; details: Details }) {
  // Everything asked for is offered, but `*` (every scope, webhooks and plan changes included)
  // starts unchecked unless it is all the client asked for: the user opts in to it.
  const [granted, setGranted] = useState<Set<string>>(
    () => new Set(details.scopes.length > 1 ? details.scopes.filter((s) => s !== '*') : details.scopes),
  );
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<'allow' | 'deny'>();

  async function finish(action: 'consent' | 'abort') {
    setBusy(action === 'consent' ? 'allow' : 'deny');
    setError(undefined);
    try {
      const { ok, data } = await call(`${api}/${action}`, action === 'consent' ? { scopes: [...granted] } : {});
      if (ok && typeof data.redirect_to === 'string') {
        window.location.assign(data.redirect_to);
        return;
      }
      setError(String(data.message ?? 'The request could not be completed.'));
    } catch {
      setError('The server could not be reached.');
    }
    setBusy(undefined);
  }

  function toggle(scope: string, on: boolean) {
    setGranted((prev) => {
      const next = new Set(prev);
      if (on) next.add(scope);
      else next.delete(scope);
      return next;
    });
  }

  return (
    <Card>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void finish('consent');
        }}
      >
        <CardHeader>
          <CardTitle className="text-base">Choose what it may do</CardTitle>
          <CardDescription>
            Signed in as <strong>{details.account?.email}</strong>
            {details.tenant ? (
              <>
                {' '}
                for the tenant <strong>{details.tenant.name}</strong>
              </>
            ) : null}
            .
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">
          {error ? <Alert variant="error">{error}</Alert> : null}
          {details.tenant ? (
            <fieldset className="grid gap-3">
              <legend className="mb-1 text-sm font-medium">Scopes requested</legend>
              {details.scopes.map((scope) => {
                const id = `scope-${scope.replace(/[^a-z0-9]/gi, '-')}`;
                return (
                  <div key={scope} className="flex items-start gap-3">
                    <input
                      id={id}
                      type="checkbox"
                      name="scope"
                      value={scope}
                      checked={granted.has(scope)}
                      onChange={(e) => toggle(scope, e.target.checked)}
                      className="mt-1 h-4 w-4 rounded border-slate-400 accent-indigo-600"
                    />
                    <label htmlFor={id} className="text-sm">
                      <code className="font-mono">{scope}</code>
                      <span className="block text-slate-700 dark:text-slate-300">{SCOPE_TEXT[scope] ?? scope}</span>
                    </label>
                  </div>
                );
              })}
            </fieldset>
          ) : (
            <Alert variant="error" title="No tenant yet">
              Your account has no tenant, so there is nothing to authorize.{' '}
              <a className="underline" href={details.account_page}>
                Create one on your account page
              </a>
              , then start again from the application.
            </Alert>
          )}
        </CardContent>
        <CardFooter className="flex gap-3">
          {details.tenant ? (
            <Button type="submit" loading={busy === 'allow'} disabled={busy !== undefined || granted.size === 0}>
              Allow
            </Button>
          ) : null}
          <Button
            type="button"
            variant="secondary"
            loading={busy === 'deny'}
            disabled={busy !== undefined}
            onClick={() => void finish('abort')}
          >
            Deny
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}

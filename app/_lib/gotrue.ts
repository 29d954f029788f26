/**
 * The identity provider's HTTP API (GoTrue / Supabase Auth shapes), called from Next's server
 * code only: sign-in, refresh, sign-up, recovery, password change, logout.
 */
import { headers as requestHeaders } from 'next/headers';
import { dashboardEnv, type DashboardEnv } from './env';

export interface GoTrueSession {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  expires_at?: number;
  user: { id: string; email?: string };
}

export class AuthApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The error body's `reason`, when the API gave one (e.g. `no_tenant`). */
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** The message of an error answer, whichever shape it has (GoTrue's `msg`, OAuth's `error_description`, ours `message`). */
export function errorMessage(body: unknown, status: number): string {
  const b = (body ?? {}) as Record<string, unknown>;
  for (const field of ['msg', 'message', 'error_description', 'error']) {
    if (typeof b[field] === 'string' && b[field]) return b[field] as string;
  }
  return `The identity provider answered ${status}.`;
}

/**
 * The browser's address, forwarded so that the API's per-client limits (sign-in attempts,
 * registrations) count that client and not this server's loopback address. server.ts sets the
 * header on every request it hands to Next; outside a request there is nothing to forward.
 */
export async function forwardedClient(env: DashboardEnv): Promise<Record<string, string>> {
  try {
    const ip = (await requestHeaders()).get('x-amp-client-ip');
    return ip ? { 'x-amp-client-ip': ip, 'x-amp-dashboard-token': env.forwardToken } : {};
  } catch {
    return {};
  }
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export async function authFetch<T>(
  path: string,
  init: { method?: string; body?: unknown; bearer?: string; query?: Record<string, string> } = {},
): Promise<T> {
  const env = dashboardEnv();
  const url = new URL(`${env.authUrl}/auth/v1/${path}`);
  for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
  // The client's address goes only to this service (the built-in provider), never to an external one.
  const forwarded = env.authUrl === env.apiUrl ? await forwardedClient(env) : {};
  const headers: Record<string, string> = { ...forwarded, apikey: env.anonKey, accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      cache: 'no-store',
    });
  } catch {
    throw new AuthApiError('The identity provider cannot be reached; try again in a moment.', 503);
  }
  const body = parseJson(await res.text());
  if (!res.ok) throw new AuthApiError(errorMessage(body, res.status), res.status);
  return body as T;
}

export const passwordGrant = (email: string, password: string) =>
  authFetch<GoTrueSession>('token', { method: 'POST', query: { grant_type: 'password' }, body: { email, password } });

export const refreshGrant = (refreshToken: string) =>
  authFetch<GoTrueSession>('token', { method: 'POST', query: { grant_type: 'refresh_token' }, body: { refresh_token: refreshToken } });

/**
 * Calls the API (not the identity provider) from Next's server code with a bearer token or an
 * API key; `tenant`: the tenant a bearer token's user acts for (`X-Tenant-Id`, the dashboard's
 * chosen tenant), its default tenant without.
 */
export async function apiFetch<T>(
  path: string,
  init: { method?: string; body?: unknown; bearer?: string; apiKey?: string; tenant?: string } = {},
): Promise<{ status: number; body: T }> {
  const env = dashboardEnv();
  const headers: Record<string, string> = { ...(await forwardedClient(env)), accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  if (init.bearer && init.tenant) headers['x-tenant-id'] = init.tenant;
  if (init.apiKey) headers['x-api-key'] = init.apiKey;
  let res: Response;
  try {
    res = await fetch(`${env.apiUrl}${path}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      cache: 'no-store',
    });
  } catch {
    throw new AuthApiError('The API cannot be reached; try again in a moment.', 503);
  }
  const body = parseJson(await res.text());
  if (!res.ok) {
    const reason = (body as { reason?: unknown } | null)?.reason;
    throw new AuthApiError(errorMessage(body, res.status), res.status, typeof reason === 'string' ? reason : undefined);
  }
  return { status: res.status, body: body as T };
}

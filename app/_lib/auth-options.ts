/**
 * next-auth (v4, JWT sessions, no adapter): three credential methods, each checked over HTTP
 * (Next code never imports the data layer):
 * - `password`: the identity provider's password grant; the session keeps its access and
 *   refresh tokens (next-auth encrypts the session JWT) and refreshes the access token shortly
 *   before it expires;
 * - `passkey`: a WebAuthn assertion the identity provider verifies into the same session as a
 *   password's;
 * - `api-key`: an API key holding `*` (tenants registered by API), checked with GET /api/v1/me.
 * server.ts reads the same cookie (src/server/session.ts) to authenticate /api/trpc calls.
 */
import type { NextAuthOptions, User } from 'next-auth';
import type { JWT } from 'next-auth/jwt';
import CredentialsProvider from 'next-auth/providers/credentials';
import type { DashboardSessionView } from '@/client/session';
import { dashboardEnv, safeCallbackPath } from './env';
import { AuthApiError, apiFetch, authFetch, passwordGrant, refreshGrant, type GoTrueSession } from './gotrue';

/** Sessions last a week of inactivity at most (the refresh token rotates as it is used). */
export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 3600;
/** The access token is refreshed when less than this is left of it. */
const REFRESH_MARGIN_SECONDS = 120;

/** What the session JWT carries (encrypted in the cookie; never sent to the browser's scripts). */
export interface DashboardToken {
  kind: DashboardSessionView['kind'];
  email?: string;
  admin: boolean;
  /** password sessions */
  accessToken?: string;
  refreshToken?: string;
  /** Unix seconds at which the access token expires. */
  expiresAt?: number;
  /** api_key sessions */
  apiKey?: string;
  tenantId?: string;
  /** Set when the session can no longer be refreshed: the user must sign in again. */
  error?: NonNullable<DashboardSessionView['error']>;
}

type AuthorizedUser = User & { token: DashboardToken };

declare module 'next-auth' {
  interface Session {
    dashboard: DashboardSessionView | null;
  }
}

/**
 * Whether the API takes this access token for an operator's: the rule is the API's alone
 * (src/identity/operator.ts: an email in ADMIN_EMAILS, and proven), so the dashboard asks it with
 * an operator call instead of repeating it. Only users listed in ADMIN_EMAILS are asked about.
 */
async function isOperator(accessToken: string, email: string): Promise<boolean> {
  if (!dashboardEnv().adminEmails.includes(email)) return false;
  try {
    await apiFetch('/api/v1/admin/tenants?limit=1', { bearer: accessToken });
    return true;
  } catch {
    return false;
  }
}

export async function tokenFromSession(session: GoTrueSession, email: string): Promise<DashboardToken> {
  const userEmail = (session.user.email ?? email).toLowerCase();
  return {
    kind: 'password',
    email: userEmail,
    admin: await isOperator(session.access_token, userEmail),
    accessToken: session.access_token,
    refreshToken: session.refresh_token,
    expiresAt: session.expires_at ?? Math.floor(Date.now() / 1000) + session.expires_in,
  };
}

/** The token with a usable access token: refreshed (rotating the refresh token) when it is about to expire. */
export async function refreshIfNeeded(token: DashboardToken): Promise<DashboardToken> {
  if (token.kind !== 'password' || token.error || !token.refreshToken) return token;
  if ((token.expiresAt ?? 0) - REFRESH_MARGIN_SECONDS > Date.now() / 1000) return token;
  try {
    return { ...(await tokenFromSession(await refreshGrant(token.refreshToken), token.email ?? '')), email: token.email };
  } catch (err) {
    // Unreachable provider: keep the session and try again on the next call.
    if (err instanceof AuthApiError && err.status >= 500) return token;
    return { ...token, accessToken: undefined, refreshToken: undefined, error: 'refresh_failed' };
  }
}

export function sessionView(token: DashboardToken): DashboardSessionView {
  return { kind: token.kind, email: token.email ?? null, tenantId: token.tenantId ?? null, admin: token.admin, error: token.error ?? null };
}

const dashboardOf = (jwt: JWT) => (jwt as { dashboard?: DashboardToken }).dashboard;

export function authOptions(): NextAuthOptions {
  return {
    secret: process.env.NEXTAUTH_SECRET,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    // Secure (and __Secure- prefixed, the name src/server/session.ts reads) exactly when the service is served over https.
    useSecureCookies: dashboardEnv().publicBaseUrl.startsWith('https://'),
    pages: { signIn: '/sign-in', signOut: '/sign-out', error: '/sign-in' },
    providers: [
      CredentialsProvider({
        id: 'password',
        name: 'Email and password',
        credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
        async authorize(credentials): Promise<AuthorizedUser> {
          const email = String(credentials?.email ?? '')
            .trim()
            .toLowerCase();
          const password = String(credentials?.password ?? '');
          if (!email || !password) throw new Error('Enter your email and password.');
          // AuthApiError's message is the provider's (e.g. "Invalid login credentials"): next-auth hands it to the page.
          const session = await passwordGrant(email, password);
          const token = await tokenFromSession(session, email);
          return { id: session.user.id, email: token.email, token };
        },
      }),
      CredentialsProvider({
        id: 'passkey',
        name: 'Passkey',
        credentials: { challengeId: { label: 'Challenge', type: 'text' }, response: { label: 'Credential', type: 'text' } },
        async authorize(credentials): Promise<AuthorizedUser> {
          let response: unknown;
          try {
            response = JSON.parse(String(credentials?.response ?? ''));
          } catch {
            throw new Error('The passkey answer could not be read; try again.');
          }
          const session = await authFetch<GoTrueSession>('passkeys/authentication/verify', {
            method: 'POST',
            body: { challenge_id: String(credentials?.challengeId ?? ''), response },
          });
          const token = await tokenFromSession(session, session.user.email ?? '');
          return { id: session.user.id, email: token.email, token };
        },
      }),
      CredentialsProvider({
        id: 'api-key',
        name: 'API key',
        credentials: { apiKey: { label: 'API key', type: 'password' } },
        async authorize(credentials): Promise<AuthorizedUser> {
          const apiKey = String(credentials?.apiKey ?? '').trim();
          if (!apiKey) throw new Error('Enter an API key.');
          const { body } = await apiFetch<{ tenant_id: string; credential: { scopes: string[] } }>('/api/v1/me', { apiKey });
          if (!body.credential.scopes.includes('*')) {
            throw new Error(
              'This key cannot open the dashboard: sign in with a key holding the "*" scope (the key returned at registration).',
            );
          }
          return { id: body.tenant_id, token: { kind: 'api_key', admin: false, apiKey, tenantId: body.tenant_id } };
        },
      }),
    ],
    callbacks: {
      // Where next-auth itself redirects after signing in or out: the service's own origin only.
      redirect({ url, baseUrl }) {
        return new URL(safeCallbackPath(url, baseUrl), baseUrl).href;
      },
      async jwt({ token, user }) {
        if (user) return { sub: user.id, dashboard: (user as AuthorizedUser).token };
        const dashboard = dashboardOf(token);
        if (!dashboard) return token;
        return { ...token, dashboard: await refreshIfNeeded(dashboard) };
      },
      async session({ session, token }) {
        const dashboard = dashboardOf(token);
        return {
          expires: session.expires,
          user: { email: dashboard?.email ?? null },
          dashboard: dashboard ? sessionView(dashboard) : null,
        };
      },
    },
    events: {
      // Signing out revokes this browser's provider session too (its refresh token stops working),
      // and only it: the user's other browsers stay signed in (`scope=local`; the default is global).
      async signOut({ token }) {
        const dashboard = token ? dashboardOf(token) : undefined;
        if (dashboard?.kind !== 'password' || !dashboard.accessToken) return;
        await authFetch('logout', { method: 'POST', bearer: dashboard.accessToken, query: { scope: 'local' } }).catch(() => undefined);
      },
    },
  };
}

/**
 * What the dashboard needs from the service's configuration. src/config.ts is the only reader of
 * the operator's environment: server.ts derives these values and hands them to Next in
 * AMP_DASHBOARD (JSON) before Next serves a request, with NEXTAUTH_URL and NEXTAUTH_SECRET.
 */
export interface DashboardEnv {
  /** Where Next's server code reaches the API (loopback: the same process's port). */
  apiUrl: string;
  /** Where Next's server code reaches the identity provider (`{authUrl}/auth/v1/*`). */
  authUrl: string;
  /** The identity provider's base URL as users' apps see it (for the sign-in help). */
  authPublicUrl: string;
  /** The `apikey` header value the identity provider requires (public, like Supabase's). */
  anonKey: string;
  /** The service's public base URL (links in mails, redirect targets). */
  publicBaseUrl: string;
  /** ADMIN_EMAILS, lower-cased: these users are operators in the dashboard. */
  adminEmails: string[];
  /** Whether the built-in provider sends mail (SMTP_URL): sign-ups then confirm their address first. */
  mail: boolean;
  /** Proves to the API that the client address this server code forwards is the one server.ts saw (src/server/session.ts). */
  forwardToken: string;
}

export function dashboardEnv(): DashboardEnv {
  const raw = process.env.AMP_DASHBOARD;
  if (!raw) throw new Error('AMP_DASHBOARD is not set: the dashboard runs inside server.ts (npm start), which sets it.');
  return JSON.parse(raw) as DashboardEnv;
}

const DEFAULT_CALLBACK_PATH = '/dashboard';

/**
 * Where to return after signing in: `value` resolved against the service's public origin with the
 * WHATWG URL parser (as a browser resolves a Location header), kept only when it stays on that
 * origin, and answered as its path, query and fragment (the parser has dropped tabs and newlines
 * and percent-encoded other control characters, so the result is safe in a header). Anything
 * else (another origin, `//host`, `/\\host`, `/<TAB>/host`, `/.//host`, not a URL) is the dashboard's overview.
 */
export function safeCallbackPath(value: string | string[] | undefined, origin = dashboardEnv().publicBaseUrl): string {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return DEFAULT_CALLBACK_PATH;
  const base = new URL(origin);
  const url = URL.parse(v, base);
  if (!url || url.origin !== base.origin || url.username || url.password) return DEFAULT_CALLBACK_PATH;
  // `/.//host` resolves to the path `//host`, which a browser would take for another host.
  if (url.pathname.startsWith('//')) return DEFAULT_CALLBACK_PATH;
  return `${url.pathname}${url.search}${url.hash}`;
}

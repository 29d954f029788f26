/**
 * `amp login --browser`: OAuth 2.1 for a native app (RFC 8252), as `gh auth login` and
 * `gcloud auth login` do it. The command registers itself with the service's authorization server
 * (RFC 7591, a public client), listens on a loopback address for the redirect, sends the person to
 * the sign-in and consent page with PKCE (S256) and the REST API as the resource (RFC 8707), and
 * exchanges the code for an access token for `/api/v1` and a refresh token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkReason, type FetchLike } from './core.js';
import { ConnectionError } from './errors.js';

/** What `amp login --browser` keeps (in the config file, mode 0600) to call the API and refresh. */
export interface OAuthSession {
  access_token: string;
  refresh_token: string;
  /** Unix seconds. */
  expires_at: number;
  scope: string;
  client_id: string;
  token_endpoint: string;
  revocation_endpoint?: string;
  /** The resource the tokens are for: `${baseUrl}/api/v1`. */
  resource: string;
}

export interface BrowserLoginOptions {
  baseUrl: string;
  fetch?: FetchLike;
  /** The scopes to ask for; the person may grant fewer on the consent page. Default: every scope the server offers. */
  scopes?: string[];
  /** Called with the address to open: the command prints it and tries to open a browser. */
  openUrl: (url: string) => void | Promise<void>;
  /** How long to wait for the person (default 5 minutes). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export class LoginError extends Error {}

interface ServerMetadata {
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  revocation_endpoint?: string;
  scopes_supported?: string[];
}

const CLIENT_NAME = 'amp command line';

/** `fetch` whose failure to get an answer is a ConnectionError naming the address and the reason. */
function answering(fetch: FetchLike | undefined): FetchLike {
  const send: FetchLike = fetch ?? ((input, init) => globalThis.fetch(input, init));
  return async (input, init) => {
    try {
      return await send(input, init);
    } catch (cause) {
      if (init?.signal?.aborted) throw cause;
      throw new ConnectionError(`${init?.method ?? 'GET'} ${String(input)} failed: ${networkReason(cause)}`, { cause });
    }
  };
}

export async function browserLogin(options: BrowserLoginOptions): Promise<OAuthSession> {
  const fetch = answering(options.fetch);
  const base = options.baseUrl.replace(/\/+$/, '');
  const metadata = await serverMetadata(base, fetch);
  if (!metadata.registration_endpoint) throw new LoginError('The service does not let command lines register (no registration endpoint).');

  const callback = await loopback();
  try {
    const redirectUri = `http://127.0.0.1:${callback.port}/callback`;
    const client = await postJson<{ client_id: string }>(fetch, metadata.registration_endpoint, {
      client_name: CLIENT_NAME,
      application_type: 'native',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const verifier = base64url(randomBytes(32));
    const state = base64url(randomBytes(16));
    const resource = `${base}/api/v1`;
    const scopes = options.scopes ?? (metadata.scopes_supported ?? []).filter((s) => s !== 'openid');
    const url = new URL(metadata.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: scopes.join(' '),
      state,
      code_challenge: base64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
      resource,
    }).toString();
    const redirected = callback.next(options.timeoutMs ?? 5 * 60_000, options.signal);
    await options.openUrl(url.href);
    const params = await redirected;
    if (params.get('state') !== state)
      throw new LoginError('The sign-in answered for another request (state mismatch); run amp login again.');
    const refused = params.get('error');
    if (refused) throw new LoginError(`Sign-in refused: ${params.get('error_description') ?? refused}.`);
    const code = params.get('code');
    if (!code) throw new LoginError('The sign-in came back without a code; run amp login again.');
    const tokens = await postForm(fetch, metadata.token_endpoint, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      code_verifier: verifier,
      resource,
    });
    return sessionOf(tokens, {
      client_id: client.client_id,
      token_endpoint: metadata.token_endpoint,
      ...(metadata.revocation_endpoint ? { revocation_endpoint: metadata.revocation_endpoint } : {}),
      resource,
    });
  } finally {
    await callback.close();
  }
}

/** The session with a fresh access token when this one ends within a minute (the refresh token rotates). */
export async function freshSession(session: OAuthSession, fetch?: FetchLike): Promise<OAuthSession | undefined> {
  if (session.expires_at - 60 > Date.now() / 1000) return undefined;
  const tokens = await postForm(answering(fetch), session.token_endpoint, {
    grant_type: 'refresh_token',
    refresh_token: session.refresh_token,
    client_id: session.client_id,
    resource: session.resource,
  }).catch((err: unknown) => {
    throw new LoginError(`The sign-in has ended (${err instanceof Error ? err.message : String(err)}): run amp login again.`);
  });
  const { access_token: _a, refresh_token: _r, expires_at: _e, scope: _s, ...rest } = session;
  return sessionOf(tokens, rest);
}

/** Ends the session at the server (revokes the refresh token and with it the grant); best effort. */
export async function revokeSession(session: OAuthSession, fetch?: FetchLike): Promise<boolean> {
  if (!session.revocation_endpoint) return false;
  try {
    await postForm(fetch ?? ((input, init) => globalThis.fetch(input, init)), session.revocation_endpoint, {
      token: session.refresh_token,
      token_type_hint: 'refresh_token',
      client_id: session.client_id,
    });
    return true;
  } catch {
    return false;
  }
}

function sessionOf(
  tokens: Record<string, unknown>,
  rest: Pick<OAuthSession, 'client_id' | 'token_endpoint' | 'revocation_endpoint' | 'resource'>,
): OAuthSession {
  if (typeof tokens.access_token !== 'string' || typeof tokens.refresh_token !== 'string') {
    throw new LoginError('The token endpoint answered without an access token and a refresh token.');
  }
  return {
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    expires_at: Math.floor(Date.now() / 1000) + (typeof tokens.expires_in === 'number' ? tokens.expires_in : 3600),
    scope: typeof tokens.scope === 'string' ? tokens.scope : '',
    ...rest,
  };
}

/** RFC 8414 metadata of the authorization server at `${base}/oauth`. */
async function serverMetadata(base: string, fetch: FetchLike): Promise<ServerMetadata> {
  const res = await fetch(`${base}/.well-known/oauth-authorization-server/oauth`, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new LoginError(`The service at ${base} offers no browser sign-in (${res.status}); use amp login --api-key.`);
  return (await res.json()) as ServerMetadata;
}

async function postJson<T>(fetch: FetchLike, url: string, body: unknown): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return (await answer(res)) as T;
}

async function postForm(fetch: FetchLike, url: string, form: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
  });
  return answer(res);
}

async function answer(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // Not JSON: reported by status below.
  }
  if (!res.ok) {
    const why = body.error_description ?? body.message ?? body.error ?? `HTTP ${res.status}`;
    throw new LoginError(String(why));
  }
  return body;
}

/** A one-shot HTTP listener on 127.0.0.1 for the authorization server's redirect. */
async function loopback(): Promise<{
  port: number;
  next: (timeoutMs: number, signal?: AbortSignal) => Promise<URLSearchParams>;
  close: () => Promise<void>;
}> {
  let deliver: ((params: URLSearchParams) => void) | undefined;
  const arrived = new Promise<URLSearchParams>((resolve) => (deliver = resolve));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    const ok = url.searchParams.has('code');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>amp</title></head><body><main><h1>${
        ok ? 'You are signed in' : 'Sign-in did not finish'
      }</h1><p>${ok ? 'You can close this tab and go back to the terminal.' : 'Go back to the terminal to see why.'}</p></main></body></html>`,
    );
    deliver?.(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    next: (timeoutMs, signal) =>
      new Promise<URLSearchParams>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new LoginError('Nobody finished signing in within the time allowed; run amp login again.')),
          timeoutMs,
        );
        const stop = () => reject(new LoginError('Sign-in stopped.'));
        signal?.addEventListener('abort', stop, { once: true });
        void arrived.then((params) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', stop);
          resolve(params);
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

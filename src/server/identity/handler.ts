/**
 * The built-in identity provider's HTTP surface: a subset of Supabase Auth (GoTrue) at
 * `/auth/v1/*`, in GoTrue's request and answer shapes so that `@supabase/supabase-js` works
 * unchanged. The operations are in src/identity/; this file parses, checks the `apikey` header,
 * counts the client IP's public pool, and writes answers and errors.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { recover, resendConfirmation, safeRedirect, signUp, updateUser, verifyToken } from '../../identity/account';
import { identityKeys } from '../../identity/keys';
import {
  authenticationOptions,
  listPasskeys,
  registerPasskey,
  registrationOptions,
  removePasskey,
  signInWithPasskey,
} from '../../identity/passkeys';
import { sessionEnded } from '../../identity/link';
import {
  issueSession,
  isSessionRevoked,
  refreshSession,
  revokeSessions,
  type GoTrueSession,
  type LogoutScope,
} from '../../identity/sessions';
import { signInWithPassword } from '../../identity/sign-in';
import { findUserById, presentUser } from '../../identity/users';
import { findUnstorable, isStorableText, unstorableMessage } from '../../lib/storable';
import { VERSION } from '../../version';
import { AppError, errorBody, type ErrorCode } from '../errors';
import { readJsonBody } from '../http/request';
import { sendJson } from '../http/respond';
import { countPublic, header, reportedPool } from '../admission';
import type { Context } from '../context';

export const IDENTITY_PREFIX = '/auth/v1';

/** GoTrue's `error_code` for our errors that carry none of their own. */
const GOTRUE_CODES: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'validation_failed',
  unauthorized: 'bad_jwt',
  not_found: 'not_found',
  method_not_allowed: 'method_not_allowed',
  conflict: 'conflict',
  payload_too_large: 'request_too_large',
  rate_limit_exceeded: 'over_request_rate_limit',
  internal_error: 'unexpected_failure',
  unavailable: 'unexpected_failure',
};

const API_VERSION = { 'X-Supabase-Api-Version': '2024-01-01' };

/**
 * One error body for both readers: the project's `{error, message, request_id, doc_url, ...}`
 * and GoTrue's `code` / `error_code` / `msg` / `error_description` (what auth-js reads).
 */
export function identityErrorBody(err: AppError, requestId: string, publicBaseUrl: string): Record<string, unknown> {
  const body = errorBody(err, requestId, publicBaseUrl);
  const code = typeof err.details.error_code === 'string' ? err.details.error_code : (GOTRUE_CODES[err.code] ?? err.code);
  return { ...body, code, error_code: code, msg: err.message, error_description: err.message };
}

function sendIdentityError(res: ServerResponse, err: AppError, ctx: Context, headers: Record<string, string>): void {
  sendJson(res, err.status, identityErrorBody(err, ctx.requestId, ctx.svc.config.publicBaseUrl), {
    ...headers,
    ...API_VERSION,
    ...err.headers,
  });
}

type Handler = (call: IdentityCall) => Promise<Answer>;
type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

interface IdentityCall {
  ctx: Context;
  req: IncomingMessage;
  url: URL;
  body: Record<string, unknown>;
}

const CORS_HEADERS = 'Content-Type, Authorization, apikey, X-Client-Info, X-Supabase-Api-Version, X-Request-Id';

/** The routes: path -> method -> handler; `apikey` is required except on the `open` methods (the JWKS, the mailed verify link). */
const ROUTES: Record<string, { open?: string[]; methods: Record<string, Handler> }> = {
  '/.well-known/jwks.json': {
    open: ['GET'],
    methods: { GET: async ({ ctx }) => ({ status: 200, body: { keys: [identityKeys(ctx.svc).publicJwk] } }) },
  },
  '/health': {
    methods: {
      GET: async () => ({
        status: 200,
        body: {
          version: VERSION,
          name: 'GoTrue',
          description: 'The built-in identity provider of Agent Module Platform (a subset of Supabase Auth).',
        },
      }),
    },
  },
  '/settings': {
    methods: {
      GET: async ({ ctx }) => ({
        status: 200,
        body: {
          external: { email: true, phone: false, anonymous_users: false },
          disable_signup: false,
          mailer_autoconfirm: !ctx.svc.config.smtpUrl,
          phone_autoconfirm: false,
          sms_provider: '',
          saml_enabled: false,
        },
      }),
    },
  },
  '/signup': {
    methods: {
      POST: async ({ ctx, url, body }) => {
        if (body.phone !== undefined)
          throw new AppError('invalid_request', 'Phone sign-ups are not supported.', { error_code: 'phone_provider_disabled' });
        const answer = await signUp(ctx.svc, {
          email: body.email,
          password: body.password,
          data: body.data,
          redirectTo: redirectParam(url),
          ip: ctx.ip,
        });
        return { status: 200, body: answer };
      },
    },
  },
  '/token': {
    methods: {
      POST: async ({ ctx, url, body }) => {
        const grant = url.searchParams.get('grant_type');
        if (grant === 'password') {
          if (body.email === undefined && body.phone !== undefined)
            throw new AppError('invalid_request', 'Phone sign-in is not supported.', { error_code: 'phone_provider_disabled' });
          const { user } = await signInWithPassword(ctx.svc, { email: body.email, password: body.password, ip: ctx.ip });
          return { status: 200, body: await issueSession(ctx.svc, user.id, 'password') };
        }
        if (grant === 'refresh_token') return { status: 200, body: await refreshSession(ctx.svc, body.refresh_token) };
        throw new AppError('invalid_request', 'Unsupported grant_type: use password or refresh_token.', {
          error_code: 'unsupported_grant_type',
        });
      },
    },
  },
  '/user': {
    methods: {
      GET: async ({ ctx }) => {
        const who = await caller(ctx);
        const user = await findUserById(ctx.svc.db, who.userId);
        if (!user) throw new AppError('unauthorized', 'User from sub claim in JWT does not exist', { error_code: 'user_not_found' });
        return { status: 200, body: presentUser(user) };
      },
      PUT: async ({ ctx, body }) => {
        const who = await caller(ctx);
        return { status: 200, body: await updateUser(ctx.svc, who, { password: body.password, email: body.email, data: body.data }) };
      },
    },
  },
  '/logout': {
    methods: {
      POST: async ({ ctx, url }) => {
        const scope = (url.searchParams.get('scope') ?? 'global') as LogoutScope;
        if (!['global', 'local', 'others'].includes(scope)) {
          throw new AppError('invalid_request', 'scope must be global, local or others.', { error_code: 'validation_failed' });
        }
        const who = await caller(ctx);
        await revokeSessions(ctx.svc, who.userId, who.sessionId, scope);
        return { status: 204 };
      },
    },
  },
  '/passkeys': {
    methods: {
      GET: async ({ ctx }) => ({ status: 200, body: await listPasskeys(ctx.svc, (await caller(ctx)).userId) }),
      DELETE: async ({ ctx, url }) => {
        await removePasskey(ctx.svc, (await caller(ctx)).userId, url.searchParams.get('id'));
        return { status: 204 };
      },
    },
  },
  '/passkeys/registration/options': {
    methods: { POST: async ({ ctx }) => ({ status: 200, body: await registrationOptions(ctx.svc, (await caller(ctx)).userId) }) },
  },
  '/passkeys/registration/verify': {
    methods: { POST: async ({ ctx, body }) => ({ status: 201, body: await registerPasskey(ctx.svc, (await caller(ctx)).userId, body) }) },
  },
  '/passkeys/authentication/options': {
    methods: { POST: async ({ ctx }) => ({ status: 200, body: await authenticationOptions(ctx.svc) }) },
  },
  '/passkeys/authentication/verify': {
    methods: { POST: async ({ ctx, body }) => ({ status: 200, body: await signInWithPasskey(ctx.svc, body) }) },
  },
  '/recover': {
    methods: {
      POST: async ({ ctx, url, body }) => {
        await recover(ctx.svc, { email: body.email, redirectTo: redirectParam(url) });
        return { status: 200, body: {} };
      },
    },
  },
  '/resend': {
    methods: {
      POST: async ({ ctx, url, body }) => {
        await resendConfirmation(ctx.svc, { type: body.type, email: body.email, redirectTo: redirectParam(url) });
        return { status: 200, body: {} };
      },
    },
  },
  '/verify': {
    // The link in a mail carries no apikey (Kong leaves GoTrue's GET /verify open too).
    open: ['GET'],
    methods: {
      POST: async ({ ctx, body }) => {
        const { session } = await verifyToken(ctx.svc, { type: body.type, token: body.token_hash ?? body.token });
        return { status: 200, body: session };
      },
      // The link in a mail (or the log): signs in and redirects with the session in the URL
      // fragment, as GoTrue does, to `redirect_to` on this origin (else the site's root).
      GET: async ({ ctx, url }) => {
        const target = new URL(safeRedirect(ctx.svc, url.searchParams.get('redirect_to')) ?? `${ctx.svc.config.publicBaseUrl}/`);
        try {
          const { session, type } = await verifyToken(ctx.svc, {
            type: url.searchParams.get('type'),
            token: url.searchParams.get('token'),
          });
          target.hash = fragment(session, type);
        } catch (err) {
          if (!(err instanceof AppError) || err.status >= 500) throw err;
          const code = typeof err.details.error_code === 'string' ? err.details.error_code : 'validation_failed';
          target.hash = new URLSearchParams({ error: 'access_denied', error_code: code, error_description: err.message }).toString();
        }
        return { status: 303, headers: { Location: target.toString() } };
      },
    },
  },
};

/**
 * Every route and its methods (HEAD and OPTIONS left out), with the methods that take no
 * `apikey`: src/server/identity/openapi.ts documents each, and tests/api/openapi-auth.test.ts
 * checks that.
 */
export function identityRoutes(): { path: string; methods: string[]; open: string[] }[] {
  return Object.entries(ROUTES).map(([path, route]) => ({
    path: `${IDENTITY_PREFIX}${path}`,
    methods: Object.keys(route.methods),
    open: route.open ?? [],
  }));
}

function fragment(session: GoTrueSession, type: string): string {
  return new URLSearchParams({
    access_token: session.access_token,
    expires_at: String(session.expires_at),
    expires_in: String(session.expires_in),
    refresh_token: session.refresh_token,
    token_type: session.token_type,
    type,
  }).toString();
}

function redirectParam(url: URL): string | undefined {
  return url.searchParams.get('redirect_to') ?? undefined;
}

/** The signed-in user of a request to /user or /logout: a valid built-in access token of a live session. */
async function caller(ctx: Context): Promise<{ userId: string; sessionId?: string }> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header(ctx.headers, 'authorization') ?? '')?.[1];
  if (!token) throw new AppError('unauthorized', 'This endpoint requires a Bearer token', { error_code: 'no_authorization' });
  const claims = await ctx.svc.bearer.verify(token).catch((err: unknown) => {
    throw err instanceof AppError ? new AppError('unauthorized', `invalid JWT: ${err.message}`, { error_code: 'bad_jwt' }) : err;
  });
  if (!claims.builtin || !claims.sessionId || (await isSessionRevoked(ctx.svc, claims.sessionId))) {
    const ended = sessionEnded();
    throw new AppError('unauthorized', ended.message, { error_code: 'session_not_found' });
  }
  return { userId: claims.subject, sessionId: claims.sessionId };
}

/** 400 `validation_failed` when a body field or query parameter holds text that cannot be stored. */
function assertStorable(body: Record<string, unknown>, url: URL): void {
  let at = findUnstorable(body);
  if (at === undefined) {
    for (const [name, value] of url.searchParams) {
      if (!isStorableText(name) || !isStorableText(value)) {
        at = name;
        break;
      }
    }
  }
  if (at === undefined) return;
  const message = unstorableMessage(at);
  throw new AppError('invalid_request', message, { error_code: 'validation_failed', issues: [{ path: at.split('.')[0]!, message }] });
}

function apikeyMatches(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Answers a request under `/auth/v1/`. When AUTH_URL (or AUTH_JWKS_URL / AUTH_JWT_SECRET) points
 * at another provider, these paths do not exist here (404).
 */
export async function handleIdentity(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Context,
  base: Record<string, string>,
  url: URL,
  pathname: string,
): Promise<void> {
  const { svc } = ctx;
  if (!svc.config.auth.builtin) {
    const err = new AppError(
      'not_found',
      'The built-in identity provider is off: AUTH_URL (or AUTH_JWKS_URL / AUTH_JWT_SECRET) names another one.',
    );
    return sendIdentityError(res, err, ctx, { ...base, ...(await reportedPool(ctx)) });
  }
  const sub = pathname.slice(IDENTITY_PREFIX.length);
  const route = Object.hasOwn(ROUTES, sub) ? ROUTES[sub] : undefined;
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
  if (method === 'OPTIONS') {
    await countPublic(ctx, true);
    res.writeHead(204, {
      ...base,
      ...ctx.res.headers,
      'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
      'Access-Control-Allow-Headers': CORS_HEADERS,
      'Access-Control-Max-Age': '86400',
    });
    return void res.end();
  }
  // Each call counts against the client IP's public pool (a 429 there before anything runs).
  try {
    await countPublic(ctx);
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'rate_limit_exceeded') throw err;
    return sendIdentityError(res, err, ctx, { ...base, ...err.headers });
  }
  const headers = { ...base, ...ctx.res.headers };
  if (!route) return sendIdentityError(res, new AppError('not_found', `No endpoint at ${pathname}.`), ctx, headers);
  const handler = route.methods[method];
  if (!handler) {
    const allowed = Object.keys(route.methods);
    const err = new AppError('method_not_allowed', `Use ${allowed.join(' or ')} on this path.`, { allowed_methods: allowed });
    return sendIdentityError(res, err, ctx, { ...headers, Allow: [...allowed, 'OPTIONS'].join(', ') });
  }
  try {
    if (!route.open?.includes(method) && !apikeyMatches(header(ctx.headers, 'apikey'), svc.config.auth.anonKey)) {
      const given = header(ctx.headers, 'apikey');
      throw new AppError(
        'unauthorized',
        given
          ? "Invalid API key: the apikey header must carry this service's anon key."
          : 'No API key found in request: send the anon key in the apikey header.',
        { error_code: given ? 'invalid_api_key' : 'no_api_key' },
      );
    }
    let body: Record<string, unknown> = {};
    if (method !== 'GET') {
      const parsed = await readJsonBody(req);
      if (parsed.kind === 'too_large') throw new AppError('payload_too_large');
      if (parsed.kind === 'invalid') throw new AppError('invalid_request', parsed.message, { error_code: 'bad_json' });
      if (parsed.kind === 'json') {
        if (!parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
          throw new AppError('invalid_request', 'The request body must be a JSON object.', { error_code: 'bad_json' });
        }
        body = parsed.value as Record<string, unknown>;
      }
    }
    // PostgreSQL cannot store U+0000 or unpaired surrogates: such input is refused here, as on
    // the REST API, before any operation takes it to the database. The mailed
    // GET /verify link keeps its own answer, a redirect carrying the error.
    if (!route.open?.includes(method)) assertStorable(body, url);
    const answer = await handler({ ctx, req, url, body });
    if (answer.status === 204 || answer.body === undefined) {
      res.writeHead(answer.status, { ...headers, ...API_VERSION, ...answer.headers });
      return void res.end();
    }
    sendJson(res, answer.status, answer.body, { ...headers, ...API_VERSION, ...answer.headers });
  } catch (err) {
    if (err instanceof AppError && err.code !== 'internal_error') return sendIdentityError(res, err, ctx, headers);
    svc.logger.error({ err, requestId: ctx.requestId }, 'identity provider request failed');
    if (res.headersSent) return void res.destroy();
    sendIdentityError(res, new AppError('internal_error'), ctx, headers);
  }
}

/**
 * The OpenAPI path items and schemas of the built-in identity provider (`/auth/v1/*`,
 * src/server/identity/handler.ts), for the authentication document (src/server/http/openapi-auth.ts).
 * One entry per route and method of `identityRoutes()`: tests/api/openapi-auth.test.ts fails when
 * a route has none, and checks real answers against what is written here.
 */
import { errorOf, jsonResponse, query, redirectResponse, schemaRef } from '../openapi-auth-parts';
import { INTERNAL, type Json, type PathItems } from '../openapi-parts';
import { identityRoutes } from './handler';

const identityError = errorOf('IdentityError');

/** What a user's GoTrue object and a session look like (src/identity/users.ts, sessions.ts), and the rest of the bodies. */
export const IDENTITY_SCHEMAS: Record<string, Json> = {
  IdentityError: {
    description:
      "Every error of `/auth/v1`: the API's error fields (`ApiError`) and, beside them, GoTrue's (`code` and `error_code` the same GoTrue code, `msg` and `error_description` the message), so `@supabase/supabase-js` reports `error.code` as with Supabase.",
    allOf: [schemaRef('ApiError')],
    type: 'object',
    required: ['code', 'error_code', 'msg', 'error_description'],
    properties: {
      code: { type: 'string', description: 'GoTrue error code, e.g. `invalid_credentials`, `weak_password`, `no_api_key`' },
      error_code: { type: 'string', description: 'The same as `code`' },
      msg: { type: 'string', description: 'The same as `message`' },
      error_description: { type: 'string', description: 'The same as `message`' },
    },
  },
  GoTrueUser: {
    type: 'object',
    description: "A user in GoTrue's shape, as `@supabase/supabase-js` reads it.",
    required: [
      'id',
      'aud',
      'role',
      'email',
      'email_confirmed_at',
      'confirmed_at',
      'last_sign_in_at',
      'phone',
      'app_metadata',
      'user_metadata',
      'identities',
      'created_at',
      'updated_at',
      'is_anonymous',
    ],
    properties: {
      id: { type: 'string', format: 'uuid' },
      aud: { type: 'string', const: 'authenticated' },
      role: { type: 'string', const: 'authenticated' },
      email: { type: 'string' },
      email_confirmed_at: { type: ['string', 'null'], format: 'date-time', description: 'null until the mailed link is followed' },
      confirmed_at: { type: ['string', 'null'], format: 'date-time' },
      confirmation_sent_at: { type: 'string', format: 'date-time' },
      recovery_sent_at: { type: 'string', format: 'date-time' },
      last_sign_in_at: { type: ['string', 'null'], format: 'date-time' },
      phone: { type: 'string', const: '' },
      app_metadata: {
        type: 'object',
        required: ['provider', 'providers'],
        properties: { provider: { type: 'string', const: 'email' }, providers: { type: 'array', items: { type: 'string' } } },
      },
      user_metadata: { type: 'object', additionalProperties: true, description: "The sign-up's `data`, and the identity's email fields" },
      identities: { type: 'array', items: { type: 'object', additionalProperties: true } },
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
      is_anonymous: { type: 'boolean', const: false },
    },
  },
  GoTrueSession: {
    type: 'object',
    description: 'A session: an ES256 access token (one hour) and a refresh token that rotates on every use.',
    required: ['access_token', 'token_type', 'expires_in', 'expires_at', 'refresh_token', 'user'],
    properties: {
      access_token: {
        type: 'string',
        description: 'ES256 JWT: `iss` `$PUBLIC_BASE_URL/auth/v1`, `aud` `authenticated`, `sub` the user id',
      },
      token_type: { type: 'string', const: 'bearer' },
      expires_in: { type: 'integer', const: 3600 },
      expires_at: { type: 'integer', description: 'Unix time (seconds) at which the access token expires' },
      refresh_token: { type: 'string' },
      user: schemaRef('GoTrueUser'),
    },
  },
  Passkey: {
    type: 'object',
    required: ['id', 'name', 'device_type', 'backed_up', 'created_at', 'last_used_at'],
    properties: {
      id: { type: 'string', description: 'The credential id (base64url)' },
      name: { type: 'string' },
      device_type: { type: 'string', enum: ['singleDevice', 'multiDevice'] },
      backed_up: { type: 'boolean' },
      created_at: { type: 'string', format: 'date-time' },
      last_used_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  PasskeyChallenge: {
    type: 'object',
    description:
      'A stored challenge (once, for five minutes) and the WebAuthn options to pass to the browser (`navigator.credentials.create` / `get`, or `startRegistration` / `startAuthentication` of `@simplewebauthn/browser`).',
    required: ['challenge_id', 'options'],
    properties: {
      challenge_id: { type: 'string', format: 'uuid' },
      options: { type: 'object', required: ['challenge'], properties: { challenge: { type: 'string' } }, additionalProperties: true },
    },
  },
};

const EMAIL = { type: 'string', maxLength: 320, description: 'The email address (case-insensitive)' };
const PASSWORD = { type: 'string', minLength: 8, description: 'At least 8 characters (`weak_password` otherwise)' };
const REDIRECT_TO = query(
  'redirect_to',
  "Where the mailed link leads after `/auth/v1/verify`: honoured on this service's origin only (else the site root).",
  { type: 'string' },
);
const SESSION = schemaRef('GoTrueSession');

/** A JSON request body; GoTrue clients send fields of their own beside these, which are ignored. */
const body = (properties: Json, required: string[] = []) => ({
  required: true,
  content: { 'application/json': { schema: { type: 'object', required, properties, additionalProperties: true } } },
});

interface IdentityOperation {
  summary: string;
  description: string;
  /** Needs the user's access token (`Authorization: Bearer`) besides the anon key. */
  bearer?: boolean;
  parameters?: Json[];
  requestBody?: Json;
  /** The answers besides the errors every operation shares (below). */
  responses: Record<string, Json>;
}

/** Documented per `METHOD path` (path relative to /auth/v1), as `identityRoutes()` lists them. */
const OPERATIONS: Record<string, IdentityOperation> = {
  'GET /.well-known/jwks.json': {
    summary: 'The public signing key (JWKS)',
    description:
      "The P-256 key that signs the access tokens (the same key as `/oauth/jwks`). No `apikey` needed; counted against the client IP's public pool.",
    responses: { 200: jsonResponse('200', 'The key set', schemaRef('JsonWebKeySet')) },
  },
  'GET /health': {
    summary: 'Health (GoTrue)',
    description: "GoTrue's health answer: the version and name.",
    responses: {
      200: jsonResponse('200', 'Up', {
        type: 'object',
        required: ['version', 'name', 'description'],
        properties: { version: { type: 'string' }, name: { type: 'string', const: 'GoTrue' }, description: { type: 'string' } },
      }),
    },
  },
  'GET /settings': {
    summary: 'Settings (GoTrue)',
    description:
      'What the provider offers: email sign-up only; `mailer_autoconfirm` is true when no `SMTP_URL` is set (accounts confirmed at sign-up).',
    responses: {
      200: jsonResponse('200', 'The settings', {
        type: 'object',
        required: ['external', 'disable_signup', 'mailer_autoconfirm', 'phone_autoconfirm'],
        properties: {
          external: { type: 'object', additionalProperties: { type: 'boolean' } },
          disable_signup: { type: 'boolean' },
          mailer_autoconfirm: { type: 'boolean' },
          phone_autoconfirm: { type: 'boolean' },
          sms_provider: { type: 'string' },
          saml_enabled: { type: 'boolean' },
        },
      }),
    },
  },
  'POST /signup': {
    summary: 'Sign up',
    description:
      'A new user. Without `SMTP_URL` the email is confirmed at once and the answer is a session; with it, a confirmation link (valid 24 h) is mailed and the answer is the user. Sign-ups per client IP are limited (`REGISTER_LIMIT_PER_HOUR`). Phone sign-ups are refused (`phone_provider_disabled`).',
    parameters: [REDIRECT_TO],
    requestBody: body(
      { email: EMAIL, password: PASSWORD, data: { type: 'object', additionalProperties: true, description: 'Kept as `user_metadata`' } },
      ['email', 'password'],
    ),
    responses: {
      200: jsonResponse('200', 'A session (accounts confirmed at once), or the user (a confirmation link was mailed)', {
        oneOf: [SESSION, schemaRef('GoTrueUser')],
      }),
      400: identityError('400', 'Invalid email or body (`validation_failed`, `bad_json`), `weak_password`, `phone_provider_disabled`'),
      409: identityError('409', 'The email is registered already (`user_already_exists`)'),
      429: identityError('429', 'Too many sign-ups from this client IP, or its public pool is spent (`over_request_rate_limit`)'),
    },
  },
  'POST /token': {
    summary: 'Sign in, or refresh a session',
    description:
      '`grant_type=password` with `{email, password}` signs in (10 attempts per minute per email and 30 per client IP, whatever their outcome); `grant_type=refresh_token` with `{refresh_token}` answers a new session and rotates the refresh token. A rotated token presented again within 10 seconds gets a fresh token of the same session; later it revokes the whole session (`refresh_token_already_used`).',
    parameters: [query('grant_type', 'The grant', { type: 'string', enum: ['password', 'refresh_token'] }, true)],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            anyOf: [
              { type: 'object', required: ['email', 'password'], properties: { email: EMAIL, password: { type: 'string' } } },
              { type: 'object', required: ['refresh_token'], properties: { refresh_token: { type: 'string' } } },
            ],
          },
        },
      },
    },
    responses: {
      200: jsonResponse('200', 'The session', SESSION),
      400: identityError(
        '400',
        '`invalid_credentials`, `email_not_confirmed`, `refresh_token_not_found`, `refresh_token_already_used`, `unsupported_grant_type`, `validation_failed`, `bad_json`',
      ),
      429: identityError(
        '429',
        'Too many sign-in attempts for the email or the client IP, or its public pool is spent (`over_request_rate_limit`)',
      ),
    },
  },
  'GET /user': {
    summary: 'The signed-in user',
    description: 'The user of the access token (a live session of this provider).',
    bearer: true,
    responses: { 200: jsonResponse('200', 'The user', schemaRef('GoTrueUser')) },
  },
  'PUT /user': {
    summary: 'Update the signed-in user',
    description:
      "A new `password` (ends the user's other sessions, keeps this one) and/or `data` merged into `user_metadata`. Changing the email is refused (`email_change_not_supported`).",
    bearer: true,
    requestBody: body({
      password: PASSWORD,
      data: { type: 'object', additionalProperties: true },
      email: { type: 'string', description: 'Accepted only when it is the current address' },
    }),
    responses: {
      200: jsonResponse('200', 'The updated user', schemaRef('GoTrueUser')),
      400: identityError('400', '`weak_password`, `email_change_not_supported`, `validation_failed`, `bad_json`'),
    },
  },
  'POST /logout': {
    summary: 'Sign out',
    description:
      "`scope=global` (the default) ends all of the user's sessions, `local` this one, `others` the others. Their access tokens are refused by the API within 5 seconds.",
    bearer: true,
    parameters: [query('scope', 'Which sessions end', { type: 'string', enum: ['global', 'local', 'others'], default: 'global' })],
    responses: { 204: jsonResponse('204', 'Signed out') },
  },
  'GET /passkeys': {
    summary: "The user's passkeys",
    description: 'The passkeys of the signed-in user, oldest first.',
    bearer: true,
    responses: { 200: jsonResponse('200', 'The passkeys', { type: 'array', items: schemaRef('Passkey') }) },
  },
  'DELETE /passkeys': {
    summary: 'Remove a passkey',
    description: "Removes one of the signed-in user's passkeys; another user's is 404.",
    bearer: true,
    parameters: [query('id', 'The passkey id', { type: 'string' }, true)],
    responses: {
      204: jsonResponse('204', 'Removed'),
      404: identityError('404', 'No such passkey of this user (`not_found`)'),
    },
  },
  'POST /passkeys/registration/options': {
    summary: 'Start adding a passkey',
    description: 'WebAuthn creation options for the signed-in user (at most 20 passkeys a user).',
    bearer: true,
    responses: { 200: jsonResponse('200', 'The challenge and creation options', schemaRef('PasskeyChallenge')) },
  },
  'POST /passkeys/registration/verify': {
    summary: 'Add a passkey',
    description: "Verifies the browser's attestation against the stored challenge (once) and keeps the public key.",
    bearer: true,
    requestBody: body(
      {
        challenge_id: { type: 'string', format: 'uuid' },
        response: { type: 'object', additionalProperties: true, description: "The browser's credential (RegistrationResponseJSON)" },
        name: { type: 'string', minLength: 1, default: 'Passkey' },
      },
      ['challenge_id', 'response'],
    ),
    responses: {
      201: jsonResponse('201', 'The new passkey', schemaRef('Passkey')),
      400: identityError(
        '400',
        'Unknown, used or expired challenge, a bad name or response (`validation_failed`), `passkey_invalid`, `bad_json`',
      ),
      409: identityError('409', 'This passkey is registered already (`conflict`)'),
    },
  },
  'POST /passkeys/authentication/options': {
    summary: 'Start a passkey sign-in',
    description: 'WebAuthn request options (discoverable credentials: no email needed).',
    responses: { 200: jsonResponse('200', 'The challenge and request options', schemaRef('PasskeyChallenge')) },
  },
  'POST /passkeys/authentication/verify': {
    summary: 'Sign in with a passkey',
    description:
      "Verifies the browser's assertion against the stored challenge (once); a counter that does not move forward is refused. A refusal never says whether the passkey exists.",
    requestBody: body(
      {
        challenge_id: { type: 'string', format: 'uuid' },
        response: { type: 'object', additionalProperties: true, description: "The browser's assertion (AuthenticationResponseJSON)" },
      },
      ['challenge_id', 'response'],
    ),
    responses: {
      200: jsonResponse('200', 'A session (`amr` passkey)', SESSION),
      400: identityError('400', 'Unknown, used or expired challenge (`validation_failed`), `passkey_invalid`, `bad_json`'),
    },
  },
  'POST /recover': {
    summary: 'Send a recovery link',
    description:
      'Mails a recovery link (valid 1 h; without `SMTP_URL` it is logged for the operator). The same answer whether the email exists or not; 5 an hour per address.',
    parameters: [REDIRECT_TO],
    requestBody: body({ email: EMAIL }, ['email']),
    responses: {
      200: jsonResponse('200', 'Sent, or nothing to send', { type: 'object', maxProperties: 0 }),
      429: identityError('429', "`over_email_send_rate_limit`, or the client IP's public pool is spent (`over_request_rate_limit`)"),
    },
  },
  'POST /resend': {
    summary: 'Resend a confirmation link',
    description:
      'A new confirmation link for an account not confirmed yet (the previous one stops working). The same answer whatever the email; 5 an hour per address; nothing is sent without `SMTP_URL`.',
    parameters: [REDIRECT_TO],
    requestBody: body({ type: { type: 'string', const: 'signup' }, email: EMAIL }, ['type', 'email']),
    responses: {
      200: jsonResponse('200', 'Sent, or nothing to send', { type: 'object', maxProperties: 0 }),
      429: identityError('429', "`over_email_send_rate_limit`, or the client IP's public pool is spent (`over_request_rate_limit`)"),
    },
  },
  'POST /verify': {
    summary: 'Verify a link token',
    description: 'Consumes the one-time token of a confirmation or recovery link and signs the user in.',
    requestBody: body(
      {
        type: { type: 'string', enum: ['signup', 'email', 'invite', 'recovery', 'magiclink'] },
        token_hash: { type: 'string', description: "The link's token" },
        token: { type: 'string', description: 'Taken when `token_hash` is absent' },
      },
      ['type'],
    ),
    responses: {
      200: jsonResponse('200', 'A session', SESSION),
      401: identityError(
        '401',
        'No or wrong `apikey` (`no_api_key`, `invalid_api_key`); an unknown, used or expired token (`otp_expired`)',
      ),
    },
  },
  'GET /verify': {
    summary: 'Follow a mailed link',
    description:
      "The link in a mail (no `apikey`): consumes the token and redirects to `redirect_to` (this service's origin only, else the site root) with the session in the URL fragment (`access_token`, `refresh_token`, `expires_at`, `expires_in`, `token_type`, `type`), as GoTrue does; a bad link redirects with `error=access_denied`, `error_code` (e.g. `otp_expired`) and `error_description` in the fragment instead.",
    parameters: [
      query('token', "The link's one-time token", { type: 'string' }, true),
      query('type', 'The kind of link', { type: 'string', enum: ['signup', 'email', 'invite', 'recovery', 'magiclink'] }, true),
      { ...REDIRECT_TO, description: "Where to go: honoured on this service's origin only (else the site root)." },
    ],
    responses: { 303: redirectResponse('303', 'To `redirect_to`, the session (or the error) in the fragment') },
  },
};

/** The errors every operation of its kind answers, under the operation's own. */
function sharedErrors(method: string, open: boolean, bearer: boolean): Record<string, Json> {
  const out: Record<string, Json> = {};
  if (!open) {
    out[400] = identityError(
      '400',
      'A body that is not a JSON object (`bad_json`), or text that cannot be stored (U+0000, unpaired surrogates) in a field or query parameter (`validation_failed`, with `issues`)',
    );
    out[401] = identityError(
      '401',
      bearer
        ? "No or wrong `apikey` (`no_api_key`, `invalid_api_key`); no, an invalid or an ended session's access token (`no_authorization`, `bad_jwt`, `session_not_found`)"
        : 'No or wrong `apikey` (`no_api_key`, `invalid_api_key`)',
    );
    if (method !== 'GET') out[413] = identityError('413', 'The body exceeds 1 MiB (`request_too_large`)');
  }
  out[429] = identityError('429', "The client IP's public pool is spent (`over_request_rate_limit`)");
  out[500] = identityError('500', INTERNAL);
  return out;
}

/** The path items of `/auth/v1/*`, one operation per route and method the handler serves. */
export function identityPaths(): PathItems {
  const paths: PathItems = {};
  for (const route of identityRoutes()) {
    for (const method of route.methods) {
      const sub = route.path.slice('/auth/v1'.length);
      const spec = OPERATIONS[`${method} ${sub}`];
      if (!spec) continue;
      const open = route.open.includes(method);
      const responses = { ...sharedErrors(method, open, spec.bearer === true), ...spec.responses };
      const operation: Json = {
        operationId: `identity-${method.toLowerCase()}${sub.replace(/[^A-Za-z0-9]+/g, '-')}`.replace(/-+$/, ''),
        tags: ['identity'],
        summary: spec.summary,
        description: spec.description,
        security: open ? [] : [spec.bearer ? { AnonApiKey: [], BearerAuth: [] } : { AnonApiKey: [] }],
        ...(spec.parameters ? { parameters: spec.parameters } : {}),
        ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
        responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
      };
      paths[route.path] = { ...paths[route.path], [method.toLowerCase()]: operation };
    }
  }
  return paths;
}

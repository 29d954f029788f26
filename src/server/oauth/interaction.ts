/**
 * The JSON endpoints behind the OAuth sign-in and consent page (`/consent/<uid>`, a Next page
 * that calls them over HTTP):
 *
 *   GET  /oauth/interaction/<uid>          what the page shows: the client (name, id, redirect
 *                                          URI), the requested scopes, the signed-in user and
 *                                          whether it has a tenant
 *   POST /oauth/interaction/<uid>/login    {email, password}: signs in (built-in identity provider)
 *   POST /oauth/interaction/<uid>/consent  {scopes: [...]}: grants those scopes -> {redirect_to}
 *   POST /oauth/interaction/<uid>/abort    the user declines -> {redirect_to} (access_denied)
 *
 * The interaction is found by its uid (a 256-bit random value that only the browser which
 * started the authorization request sees). Finishing it only stores the result: the browser
 * must then follow `redirect_to` to `/oauth/authorize/<uid>`, where oidc-provider checks its
 * resume cookie, so a result can only be used by the browser that started the flow.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InteractionRecord } from 'oidc-provider';
import { z } from 'zod';
import { authUsers } from '../../db/schema';
import { signInWithPassword } from '../../identity/sign-in';
import { AppError, invalidRequest } from '../../lib/errors';
import { findUnstorable, unstorableMessage } from '../../lib/storable';
import type { Services } from '../../services';
import { eq } from 'drizzle-orm';
import { readJsonBody } from '../http/request';
import { sendError, sendJson } from '../http/respond';
import { apiResources, MCP_SCOPES, mcpResource, mcpResources, OAUTH_SCOPES } from './endpoints';
import { loadProvider } from './load';
import { userTenant } from './resource';

export const INTERACTION_PREFIX = '/oauth/interaction/';

/** The steps after the first GET, each a POST to `/oauth/interaction/<uid>/<step>`. */
export const INTERACTION_ACTIONS = ['login', 'consent', 'abort'] as const;

/** The bodies of the login and consent steps (src/server/oauth/openapi.ts documents them from these). */
export const loginBody = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) }).strict();
export const consentBody = z.object({ scopes: z.array(z.string().max(64)).max(32) }).strict();

const headersOf = { 'Cache-Control': 'no-store' };

/** The largest body the sign-in and consent endpoints read (an email and a password, or a list of scopes). */
export const INTERACTION_BODY_LIMIT = 16 * 1024;

/** Answers one request under /oauth/interaction/. */
export async function handleInteraction(
  svc: Services,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  requestId: string,
  ip: string,
): Promise<void> {
  try {
    const [uid, action, ...rest] = pathname.slice(INTERACTION_PREFIX.length).split('/');
    if (!uid || rest.length > 0 || !/^[A-Za-z0-9_-]{1,64}$/.test(uid)) throw new AppError('not_found', 'No such sign-in request.');
    const wanted = action === undefined ? 'GET' : 'POST';
    if (action !== undefined && !(INTERACTION_ACTIONS as readonly string[]).includes(action))
      throw new AppError('not_found', 'No such sign-in step.');
    if (req.method !== wanted)
      throw new AppError('method_not_allowed', `Use ${wanted} on this path.`, { allowed_methods: [wanted] }, { Allow: wanted });
    if (wanted === 'POST') assertSameOrigin(svc, req);

    const provider = await (await loadProvider()).oauthProvider(svc);
    const interaction = await provider.Interaction.find(uid);
    if (!interaction)
      throw new AppError('not_found', 'This sign-in request has expired or does not exist; start again from your MCP client.');

    if (action === undefined) return sendJson(res, 200, await describe(svc, interaction), headersOf);

    const body = await readJsonBody(req, INTERACTION_BODY_LIMIT);
    if (body.kind === 'too_large')
      throw new AppError(
        'payload_too_large',
        `The body is larger than ${INTERACTION_BODY_LIMIT} bytes (16 KiB), the limit of the sign-in and consent endpoints.`,
      );
    const value = body.kind === 'json' ? body.value : body.kind === 'empty' ? {} : undefined;
    if (value === undefined) throw invalidRequest('The body must be JSON.');
    // PostgreSQL cannot store U+0000 or unpaired surrogates: refused here, never taken to the database.
    const unstorable = findUnstorable(value);
    if (unstorable !== undefined) {
      const message = unstorableMessage(unstorable);
      throw invalidRequest(message, [{ path: unstorable.split('.')[0]!, message }]);
    }

    if (action === 'login') {
      const parsed = loginBody.safeParse(value);
      if (!parsed.success)
        throw invalidRequest(
          'Send {email, password}.',
          parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
        );
      const session = await signInWithPassword(svc, { email: parsed.data.email, password: parsed.data.password, ip });
      interaction.result = { ...interaction.result, login: { accountId: session.user.id } };
      await interaction.save(ttlOf(interaction));
      return sendJson(res, 200, await describe(svc, interaction), headersOf);
    }

    if (action === 'abort') {
      interaction.result = { error: 'access_denied', error_description: 'The user declined the authorization request.' };
      await interaction.save(ttlOf(interaction));
      return sendJson(res, 200, { redirect_to: interaction.returnTo }, headersOf);
    }

    // consent
    const parsed = consentBody.safeParse(value);
    if (!parsed.success)
      throw invalidRequest(
        'Send {scopes: [...]}.',
        parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      );
    const accountId = accountOf(interaction);
    if (!accountId) throw new AppError('unauthorized', 'Sign in first.');
    if (!(await userTenant(svc, accountId))) {
      throw new AppError('conflict', 'Your account has no tenant yet: create one on your account page, then start again.', {
        reason: 'no_tenant',
      });
    }
    const requested = requestedScopes(interaction);
    const granted = parsed.data.scopes.filter((s) => requested.includes(s));
    const unknown = parsed.data.scopes.filter((s) => !requested.includes(s));
    if (unknown.length) throw invalidRequest(`Only the requested scopes can be granted; not requested: ${unknown.join(', ')}.`);
    if (granted.length === 0) throw invalidRequest('Grant at least one scope, or decline.');
    const rejected = requested.filter((s) => !granted.includes(s));

    const clientId = String(interaction.params.client_id);
    const grant = interaction.grantId
      ? ((await provider.Grant.find(interaction.grantId)) ?? new provider.Grant({ accountId, clientId }))
      : new provider.Grant({ accountId, clientId });
    const resource = requestedResource(svc, interaction);
    // Both as resource scopes (what the access token carries) and as OpenID-level scopes (the
    // provider knows them too); refused ones are recorded as rejected so consent is complete.
    const g = grant as typeof grant & { addOIDCScope(s: string): void; rejectOIDCScope(s: string): void };
    g.addResourceScope(resource, granted.join(' '));
    g.addOIDCScope(granted.join(' '));
    if (rejected.length) {
      g.rejectResourceScope(resource, rejected.join(' '));
      g.rejectOIDCScope(rejected.join(' '));
    }
    if (
      String(interaction.params.scope ?? '')
        .split(' ')
        .includes('offline_access')
    )
      g.addOIDCScope('offline_access');
    const grantId = await grant.save();
    interaction.result = { ...interaction.result, login: { accountId }, consent: { grantId } };
    await interaction.save(ttlOf(interaction));
    return sendJson(res, 200, { redirect_to: interaction.returnTo }, headersOf);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return sendError(res, err, requestId, headersOf, svc.config.publicBaseUrl);
  }
}

/** The resource the client asked for when it is a name of /api/mcp or /api/v1 (a loopback alias, see publicBaseFor), else the MCP resource. */
function requestedResource(svc: Services, interaction: InteractionRecord): string {
  const asked = interaction.params.resource;
  return typeof asked === 'string' && [...mcpResources(svc), ...apiResources(svc)].includes(asked) ? asked : mcpResource(svc);
}

/** The page's view of the request. */
async function describe(svc: Services, interaction: InteractionRecord) {
  const provider = await (await loadProvider()).oauthProvider(svc);
  const clientId = String(interaction.params.client_id);
  const client = await provider.Client.find(clientId).catch(() => undefined);
  const accountId = accountOf(interaction);
  let account: { id: string; email: string } | null = null;
  let tenant: { id: string; name: string } | null = null;
  if (accountId) {
    const [user] = await svc.db
      .select({ id: authUsers.id, email: authUsers.email })
      .from(authUsers)
      .where(eq(authUsers.id, accountId))
      .limit(1);
    account = user ?? null;
    const t = user ? await userTenant(svc, user.id) : undefined;
    tenant = t ? { id: t.id, name: t.agentName } : null;
  }
  const meta = client?.metadata() ?? {};
  return {
    uid: interaction.uid,
    step: account ? 'consent' : 'login',
    client: {
      client_id: clientId,
      client_name: typeof meta.client_name === 'string' ? meta.client_name : null,
      client_uri: typeof meta.client_uri === 'string' ? meta.client_uri : null,
      redirect_uri: String(interaction.params.redirect_uri ?? ''),
      /** Named by a Client ID Metadata Document (an https URL) rather than registered here. */
      metadata_document: /^https:\/\//.test(clientId),
    },
    resource: requestedResource(svc, interaction),
    scopes: requestedScopes(interaction),
    account,
    tenant,
    account_page: `${svc.config.publicBaseUrl}/account`,
  };
}

function accountOf(interaction: InteractionRecord): string | undefined {
  const login = interaction.result?.login as { accountId?: string } | undefined;
  return login?.accountId ?? interaction.session?.accountId;
}

/** The spec scopes the client asked for (the MCP endpoint's when it named none). */
function requestedScopes(interaction: InteractionRecord): string[] {
  const asked = String(interaction.params.scope ?? '')
    .split(' ')
    .filter(Boolean);
  const known = asked.filter((s) => OAUTH_SCOPES.includes(s));
  return known.length ? [...new Set(known)] : [...MCP_SCOPES];
}

const ttlOf = (interaction: InteractionRecord) => Math.max(1, interaction.exp - Math.floor(Date.now() / 1000));

/** State-changing calls come from our own page: a foreign Origin is refused (CSRF). */
function assertSameOrigin(svc: Services, req: IncomingMessage): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  if (origin !== new URL(svc.config.publicBaseUrl).origin) throw invalidRequest('Requests from another origin are refused.');
}

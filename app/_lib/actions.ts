'use server';
/**
 * Server actions of the sign-in pages and the account page. They run in Next's server, call the
 * identity provider and the API over HTTP, and return `{ ok, message }` for the page to announce.
 * Next refuses server actions posted from another origin (its own CSRF check).
 */
import { z } from 'zod';
import type { ActionResult } from '@/client/actions';
import { newPasswordField } from '@/components/forms/fields';
import { EMAIL_MAX_LENGTH, LINK_API_KEY_MAX_LENGTH, TENANT_NAME_MAX_LENGTH } from '@/src/contract/limits';
import { dashboardEnv, safeCallbackPath } from './env';
import { AuthApiError, apiFetch, authFetch, passwordGrant, type GoTrueSession } from './gotrue';
import { freshSession } from './session';

const fail = (message: string) => ({ ok: false, message }) as const;

async function attempt<T>(run: () => Promise<ActionResult<T>>): Promise<ActionResult<T>> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof AuthApiError) return fail(err.message);
    console.error('dashboard action failed', err);
    return fail('Something went wrong; try again in a moment.');
  }
}

const email = z.email('Enter a valid email address.').max(EMAIL_MAX_LENGTH);
const password = newPasswordField;

/**
 * Sign-up: with mail the address is confirmed first (`confirm: true`); without, the account is
 * ready to sign in. `callbackUrl`: where the confirmation link's sign-in goes on to (an
 * invitation's page, say), kept on this origin.
 */
export async function signUp(input: {
  email: string;
  password: string;
  callbackUrl?: string;
}): Promise<ActionResult<{ confirm: boolean }>> {
  const parsed = z.object({ email, password }).safeParse(input);
  if (!parsed.success) return fail(parsed.error.issues[0]!.message);
  return attempt(async () => {
    const env = dashboardEnv();
    const back = input.callbackUrl ? `&callbackUrl=${encodeURIComponent(safeCallbackPath(input.callbackUrl))}` : '';
    const answer = await authFetch<Partial<GoTrueSession> & { confirmation_sent_at?: string }>('signup', {
      method: 'POST',
      query: { redirect_to: `${env.publicBaseUrl}/sign-in?confirmed=1${back}` },
      body: { email: parsed.data.email, password: parsed.data.password },
    });
    const confirm = !answer.access_token;
    return {
      ok: true,
      message: confirm ? `We sent a confirmation link to ${parsed.data.email}. Open it, then sign in.` : 'Your account is ready.',
      data: { confirm },
    };
  });
}

/** A new confirmation link for an account not confirmed yet; the answer is the same whatever the email. */
export async function resendConfirmation(input: { email: string }): Promise<ActionResult> {
  const parsed = z.object({ email }).safeParse(input);
  if (!parsed.success) return fail(parsed.error.issues[0]!.message);
  return attempt(async () => {
    const env = dashboardEnv();
    await authFetch('resend', {
      method: 'POST',
      query: { redirect_to: `${env.publicBaseUrl}/sign-in?confirmed=1` },
      body: { type: 'signup', email: parsed.data.email },
    });
    return {
      ok: true,
      message: `If ${parsed.data.email} has an account waiting for confirmation, a new link is on its way. Earlier links no longer work.`,
    };
  });
}

/** Asks for a recovery link; the answer is the same whether the account exists or not. */
export async function requestPasswordReset(input: { email: string }): Promise<ActionResult> {
  const parsed = z.object({ email }).safeParse(input);
  if (!parsed.success) return fail(parsed.error.issues[0]!.message);
  return attempt(async () => {
    const env = dashboardEnv();
    await authFetch('recover', {
      method: 'POST',
      query: { redirect_to: `${env.publicBaseUrl}/reset-password/update` },
      body: { email: parsed.data.email },
    });
    const where = env.mail ? 'by email' : "in the service's log (no mail server is configured: ask the operator)";
    return {
      ok: true,
      message: `If an account exists for ${parsed.data.email}, a link to choose a new password has been sent ${where}. It is valid for one hour.`,
    };
  });
}

/** Sets a new password with the access token of a recovery link (from the URL fragment). */
export async function updatePasswordWithRecovery(input: { accessToken: string; password: string }): Promise<ActionResult> {
  const parsed = z.object({ accessToken: z.string().min(1).max(4096), password }).safeParse(input);
  if (!parsed.success) return fail(parsed.error.issues[0]!.message);
  return attempt(async () => {
    await authFetch('user', { method: 'PUT', bearer: parsed.data.accessToken, body: { password: parsed.data.password } });
    return { ok: true, message: 'Your password has been changed. Sign in with the new one.' };
  });
}

/** Changes the signed-in user's password after checking the current one. */
export async function changePassword(input: { currentPassword: string; newPassword: string }): Promise<ActionResult> {
  const parsed = z.object({ currentPassword: z.string().min(1, 'Enter your current password.'), newPassword: password }).safeParse(input);
  if (!parsed.success) return fail(parsed.error.issues[0]!.message);
  return attempt(async () => {
    const session = await freshSession();
    if (session?.kind !== 'password' || !session.accessToken || !session.email)
      return fail('Sign in with your email and password to change it.');
    try {
      await passwordGrant(session.email, parsed.data.currentPassword);
    } catch (err) {
      if (err instanceof AuthApiError && err.status < 500 && err.status !== 429) return fail('The current password is not correct.');
      throw err;
    }
    await authFetch('user', { method: 'PUT', bearer: session.accessToken, body: { password: parsed.data.newPassword } });
    return { ok: true, message: 'Your password has been changed.' };
  });
}

/** Creates a tenant owned by the signed-in user (POST /api/v1/auth/register with its bearer token). */
export async function createTenant(input: { agentName: string }): Promise<ActionResult<{ tenantId: string; apiKey?: string }>> {
  const parsed = z.object({ agentName: z.string().trim().min(1, 'Name your tenant.').max(TENANT_NAME_MAX_LENGTH) }).safeParse(input);
  if (!parsed.success) return fail(parsed.error.issues[0]!.message);
  return attempt(async () => {
    const session = await freshSession();
    if (session?.kind !== 'password' || !session.accessToken) return fail('Sign in with your email and password first.');
    const { body } = await apiFetch<{ tenant_id: string; api_key?: string }>('/api/v1/auth/register', {
      method: 'POST',
      bearer: session.accessToken,
      body: { agent_name: parsed.data.agentName },
    });
    return { ok: true, message: 'Your tenant is ready.', data: { tenantId: body.tenant_id, apiKey: body.api_key } };
  });
}

/** Links the tenant whose `*` key the user presents (POST /api/v1/auth/link). */
export async function linkTenant(input: { apiKey: string }): Promise<ActionResult<{ tenantId: string }>> {
  const parsed = z.object({ apiKey: z.string().trim().min(1, 'Enter the API key.').max(LINK_API_KEY_MAX_LENGTH) }).safeParse(input);
  if (!parsed.success) return fail(parsed.error.issues[0]!.message);
  return attempt(async () => {
    const session = await freshSession();
    if (session?.kind !== 'password' || !session.accessToken) return fail('Sign in with your email and password first.');
    const { body } = await apiFetch<{ tenant_id: string }>('/api/v1/auth/link', {
      method: 'POST',
      bearer: session.accessToken,
      body: { api_key: parsed.data.apiKey },
    });
    return { ok: true, message: 'The tenant is now linked to your account.', data: { tenantId: body.tenant_id } };
  });
}

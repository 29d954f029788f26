'use server';
/**
 * Server actions for passkeys: the account page's list, add and remove (with the session's access
 * token, which never reaches the browser), and the sign-in page's challenge. The browser runs the
 * WebAuthn ceremony (@simplewebauthn/browser) between an options call and its verification.
 */
import { z } from 'zod';
import type { ActionResult, PasskeyView } from '@/client/actions';
import { AuthApiError, authFetch } from './gotrue';
import { freshSession } from './session';

const fail = (message: string) => ({ ok: false, message }) as const;

async function withAccessToken<T>(run: (accessToken: string) => Promise<ActionResult<T>>): Promise<ActionResult<T>> {
  try {
    const session = await freshSession();
    if (session?.kind !== 'password' || !session.accessToken) return fail('Sign in with your email and password to manage passkeys.');
    return await run(session.accessToken);
  } catch (err) {
    if (err instanceof AuthApiError) return fail(err.message);
    console.error('passkey action failed', err);
    return fail('Something went wrong; try again in a moment.');
  }
}

export async function listPasskeys(): Promise<ActionResult<PasskeyView[]>> {
  return withAccessToken(async (bearer) => ({ ok: true, message: '', data: await authFetch<PasskeyView[]>('passkeys', { bearer }) }));
}

export async function passkeyRegistrationOptions(): Promise<ActionResult<{ challengeId: string; options: unknown }>> {
  return withAccessToken(async (bearer) => {
    const body = await authFetch<{ challenge_id: string; options: unknown }>('passkeys/registration/options', { method: 'POST', bearer });
    return { ok: true, message: '', data: { challengeId: body.challenge_id, options: body.options } };
  });
}

const addInput = z.object({
  challengeId: z.string().max(64),
  response: z.record(z.string(), z.unknown()),
  name: z.string().trim().min(1).max(64),
});

export async function addPasskey(input: { challengeId: string; response: unknown; name: string }): Promise<ActionResult<PasskeyView>> {
  const parsed = addInput.safeParse(input);
  if (!parsed.success) return fail('Name the passkey (up to 64 characters).');
  return withAccessToken(async (bearer) => {
    const passkey = await authFetch<PasskeyView>('passkeys/registration/verify', {
      method: 'POST',
      bearer,
      body: { challenge_id: parsed.data.challengeId, response: parsed.data.response, name: parsed.data.name },
    });
    return { ok: true, message: `The passkey “${passkey.name}” is added: you can sign in with it.`, data: passkey };
  });
}

export async function removePasskey(input: { id: string }): Promise<ActionResult> {
  return withAccessToken(async (bearer) => {
    await authFetch('passkeys', { method: 'DELETE', bearer, query: { id: String(input.id).slice(0, 1024) } });
    return { ok: true, message: 'The passkey is removed.' };
  });
}

/** A sign-in challenge (no session needed). */
export async function passkeySignInOptions(): Promise<ActionResult<{ challengeId: string; options: unknown }>> {
  try {
    const body = await authFetch<{ challenge_id: string; options: unknown }>('passkeys/authentication/options', { method: 'POST' });
    return { ok: true, message: '', data: { challengeId: body.challenge_id, options: body.options } };
  } catch (err) {
    if (err instanceof AuthApiError) return fail(err.message);
    return fail('Something went wrong; try again in a moment.');
  }
}

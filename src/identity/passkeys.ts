/**
 * Passkeys (WebAuthn) for the built-in identity provider, with @simplewebauthn/server: a signed-in
 * user registers passkeys (listed, named, removed) and signs in with one instead of its password.
 * The relying party is the service's public origin (PUBLIC_BASE_URL): its host name is the RP ID.
 * Each ceremony's challenge is stored, single-use, for five minutes (docs/auth.md, Passkeys).
 */
import type { AuthenticationResponseJSON, AuthenticatorTransport, RegistrationResponseJSON } from '@simplewebauthn/server';
import { and, asc, eq, gt, lt } from 'drizzle-orm';
import { authChallenges, authPasskeys, type AuthPasskeyRow } from '../db/schema';
import { AppError, notFound } from '../lib/errors';
import type { Services } from '../services';
import { issueSession, type GoTrueSession } from './sessions';
import { findUserById } from './users';

/** The WebAuthn library (and its ASN.1 and COSE parsers, some 300 files), loaded at the first ceremony rather than at every start. */
const webauthn = () => import('@simplewebauthn/server');

const CHALLENGE_TTL_MS = 5 * 60_000;
/** Passkeys a user may keep. */
export const MAX_PASSKEYS = 20;
const NAME_MAX = 64;

const invalid = (message: string, path = '') =>
  new AppError('invalid_request', message, { error_code: 'validation_failed', issues: [{ path, message }] });
const refused = () => new AppError('invalid_request', 'The passkey could not be verified.', { error_code: 'passkey_invalid' });

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The relying party: PUBLIC_BASE_URL's host name and origin. An IP address cannot be an RP ID,
 * so a loopback PUBLIC_BASE_URL (a development or test server) has the RP ID `localhost`: open
 * the dashboard at http://localhost:PORT to use passkeys there.
 */
function relyingParty(svc: Services) {
  const url = new URL(svc.config.publicBaseUrl);
  const loopback = LOOPBACK.has(url.hostname);
  return { id: loopback ? 'localhost' : url.hostname, origin: url.origin, loopback };
}

/**
 * The origin the browser reported (clientDataJSON), when the service accepts it: PUBLIC_BASE_URL's
 * origin, or on a loopback server any http://localhost origin. The library then checks the
 * signature over exactly that origin.
 */
function acceptedOrigin(svc: Services, clientDataJSON: unknown): string {
  const rp = relyingParty(svc);
  let origin: string | undefined;
  try {
    origin = (JSON.parse(Buffer.from(String(clientDataJSON), 'base64url').toString('utf8')) as { origin?: unknown }).origin as string;
  } catch {
    throw refused();
  }
  if (origin === rp.origin) return origin;
  if (rp.loopback && typeof origin === 'string') {
    try {
      if (new URL(origin).hostname === rp.id) return origin;
    } catch {
      /* refused below */
    }
  }
  throw refused();
}

async function storeChallenge(svc: Services, purpose: 'registration' | 'authentication', challenge: string, userId: string | null) {
  await svc.db.delete(authChallenges).where(lt(authChallenges.expiresAt, new Date()));
  const [row] = await svc.db
    .insert(authChallenges)
    .values({ purpose, challenge, userId, expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS) })
    .returning({ id: authChallenges.id });
  return row!.id;
}

/** Takes a stored challenge once: the challenge, or 400 when it is unknown, used or expired. */
async function takeChallenge(svc: Services, id: unknown, purpose: 'registration' | 'authentication', userId: string | null) {
  if (typeof id !== 'string' || !/^[0-9a-f-]{36}$/i.test(id)) throw invalid('challenge_id is required.', 'challenge_id');
  const [row] = await svc.db
    .delete(authChallenges)
    .where(and(eq(authChallenges.id, id), eq(authChallenges.purpose, purpose), gt(authChallenges.expiresAt, new Date())))
    .returning();
  if (!row || row.userId !== userId) throw invalid('The challenge is unknown, used or expired: start again.', 'challenge_id');
  return row.challenge;
}

export function presentPasskey(row: AuthPasskeyRow) {
  return {
    id: row.id,
    name: row.name,
    device_type: row.deviceType,
    backed_up: row.backedUp,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}

export async function listPasskeys(svc: Services, userId: string) {
  const rows = await svc.db.select().from(authPasskeys).where(eq(authPasskeys.userId, userId)).orderBy(asc(authPasskeys.createdAt));
  return rows.map(presentPasskey);
}

/** POST /auth/v1/passkeys/registration/options: options for navigator.credentials.create, with the challenge's id. */
export async function registrationOptions(svc: Services, userId: string) {
  const user = await findUserById(svc.db, userId);
  if (!user) throw notFound('user');
  const existing = await svc.db.select().from(authPasskeys).where(eq(authPasskeys.userId, userId));
  if (existing.length >= MAX_PASSKEYS) throw invalid(`A user keeps at most ${MAX_PASSKEYS} passkeys: remove one first.`);
  const rp = relyingParty(svc);
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: 'Agent Module Platform',
    rpID: rp.id,
    userName: user.email,
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports as AuthenticatorTransport[] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  return { challenge_id: await storeChallenge(svc, 'registration', options.challenge, userId), options };
}

/** POST /auth/v1/passkeys/registration/verify {challenge_id, response, name?}: the new passkey. */
export async function registerPasskey(svc: Services, userId: string, body: Record<string, unknown>) {
  const name = body.name === undefined ? 'Passkey' : body.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > NAME_MAX)
    throw invalid(`name must be 1 to ${NAME_MAX} characters.`, 'name');
  const challenge = await takeChallenge(svc, body.challenge_id, 'registration', userId);
  const response = body.response as RegistrationResponseJSON | undefined;
  if (!response || typeof response !== 'object') throw invalid('response is required (the browser’s credential).', 'response');
  let verification;
  try {
    const { verifyRegistrationResponse } = await webauthn();
    verification = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: acceptedOrigin(svc, response.response?.clientDataJSON),
      expectedRPID: relyingParty(svc).id,
      requireUserVerification: false,
    });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw refused();
  }
  if (!verification.verified) throw refused();
  const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
  const [row] = await svc.db
    .insert(authPasskeys)
    .values({
      id: credential.id,
      userId,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
      name: name.trim(),
    })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new AppError('conflict', 'This passkey is already registered.');
  return presentPasskey(row);
}

/** DELETE /auth/v1/passkeys?id=: removes one of the user's passkeys (another user's is 404). */
export async function removePasskey(svc: Services, userId: string, id: string | null) {
  if (!id) throw invalid('id is required.', 'id');
  const removed = await svc.db
    .delete(authPasskeys)
    .where(and(eq(authPasskeys.id, id), eq(authPasskeys.userId, userId)))
    .returning({ id: authPasskeys.id });
  if (removed.length === 0) throw notFound('passkey');
}

/** POST /auth/v1/passkeys/authentication/options: options for navigator.credentials.get (any of the site's passkeys). */
export async function authenticationOptions(svc: Services) {
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({ rpID: relyingParty(svc).id, userVerification: 'preferred' });
  return { challenge_id: await storeChallenge(svc, 'authentication', options.challenge, null), options };
}

/**
 * POST /auth/v1/passkeys/authentication/verify {challenge_id, response}: a session (GoTrue's
 * shape, `amr` passkey) for the passkey's user. The signature counter must move forward when the
 * authenticator keeps one (a cloned authenticator is refused).
 */
export async function signInWithPasskey(svc: Services, body: Record<string, unknown>): Promise<GoTrueSession> {
  const challenge = await takeChallenge(svc, body.challenge_id, 'authentication', null);
  const response = body.response as AuthenticationResponseJSON | undefined;
  if (!response || typeof response !== 'object' || typeof response.id !== 'string') throw invalid('response is required.', 'response');
  const [passkey] = await svc.db.select().from(authPasskeys).where(eq(authPasskeys.id, response.id)).limit(1);
  if (!passkey) throw refused();
  let verification;
  try {
    const { verifyAuthenticationResponse } = await webauthn();
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: acceptedOrigin(svc, response.response?.clientDataJSON),
      expectedRPID: relyingParty(svc).id,
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
        counter: passkey.counter,
        transports: passkey.transports as AuthenticatorTransport[],
      },
      requireUserVerification: false,
    });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw refused();
  }
  if (!verification.verified) throw refused();
  await svc.db
    .update(authPasskeys)
    .set({ counter: verification.authenticationInfo.newCounter, lastUsedAt: new Date(), updatedAt: new Date() })
    .where(eq(authPasskeys.id, passkey.id));
  return issueSession(svc, passkey.userId, 'passkey');
}

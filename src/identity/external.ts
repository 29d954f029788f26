import type { Services } from '../services';

/**
 * Whether an external Supabase Auth project confirmed this user's email: asks the project itself
 * (`GET {AUTH_URL}/auth/v1/user` with the user's token and AUTH_ANON_KEY as `apikey`) and reads
 * `email_confirmed_at`, a field only the provider writes. The access token's `user_metadata` is
 * not proof: Supabase documents it as user-editable (`updateUser({ data })`), so a user could
 * write `email_verified: true` there. Any failure (unreachable, refused, other email) is "no".
 */
export async function externalEmailConfirmed(svc: Services, token: string, email: string): Promise<boolean> {
  const base = svc.config.auth.url?.replace(/\/+$/, '');
  if (!base) return false;
  try {
    const res = await fetch(`${base}/auth/v1/user`, {
      headers: { authorization: `Bearer ${token}`, apikey: svc.config.auth.anonKey },
      signal: AbortSignal.timeout(3000),
      redirect: 'error',
    });
    if (!res.ok) return false;
    const user = (await res.json()) as { email?: unknown; email_confirmed_at?: unknown };
    return (
      typeof user.email === 'string' &&
      user.email.toLowerCase() === email &&
      typeof user.email_confirmed_at === 'string' &&
      user.email_confirmed_at.length > 0
    );
  } catch (err) {
    svc.logger.warn({ err: String(err) }, 'could not ask the identity provider whether an email is confirmed');
    return false;
  }
}

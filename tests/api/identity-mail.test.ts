/**
 * The built-in identity provider with SMTP_URL: confirmation and recovery mails through a real
 * local SMTP server (smtp-server, parsed with mailparser); a mailed confirmation proves the email.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createClient } from '@supabase/supabase-js';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends, startTestServer, type TestServer } from '../harness';

const PASSWORD = 'correct horse battery';
const newEmail = () => `mail-${randomBytes(5).toString('hex')}@example.com`;

backends.describe('built-in identity provider with SMTP_URL (%s)', (backend) => {
  let smtp: SMTPServer;
  const inbox: ParsedMail[] = [];
  let s: TestServer;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      onData(stream, _session, callback) {
        simpleParser(stream).then(
          (mail) => {
            inbox.push(mail);
            callback();
          },
          (err: Error) => callback(err),
        );
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    s = await startTestServer({ backend, env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await s?.close();
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  });

  const client = () => createClient(s.url, s.config.auth.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });

  /** The link of the latest mail to `to` (the mail's own origin replaced by the test server's). */
  async function linkFor(to: string): Promise<URL> {
    for (let i = 0; i < 100; i++) {
      const mail = inbox.filter((m) => m.to && JSON.stringify(m.to).includes(to)).at(-1);
      const href = mail?.text?.match(/https?:\/\/\S+/)?.[0];
      if (href) return new URL(href);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no mail to ${to}`);
  }

  it('sign-up mails a confirmation link; until it is followed, sign-in is refused (email_not_confirmed)', async () => {
    const email = newEmail();
    const { data, error } = await client().auth.signUp({ email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user?.email).toBe(email);
    expect(data.user?.email_confirmed_at ?? null).toBeNull();

    const early = await client().auth.signInWithPassword({ email, password: PASSWORD });
    expect(early.error?.code).toBe('email_not_confirmed');

    const link = await linkFor(email);
    expect(link.pathname).toBe('/auth/v1/verify');
    expect(link.searchParams.get('type')).toBe('signup');
    const mail = inbox.find((m) => JSON.stringify(m.to).includes(email))!;
    expect(mail.subject).toMatch(/confirm/i);
    expect(mail.text).not.toContain(PASSWORD);

    const res = await fetch(`${s.url}${link.pathname}${link.search}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const fragment = new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1));
    expect(fragment.get('access_token')).toBeTruthy();
    expect(fragment.get('type')).toBe('signup');

    const later = await client().auth.signInWithPassword({ email, password: PASSWORD });
    expect(later.error).toBeNull();
    expect(later.data.user?.email_confirmed_at).toBeTruthy();
  });

  it('resend (supabase-js auth.resend): a new confirmation link replaces the old one; the same answer for any email', async () => {
    const email = newEmail();
    await client().auth.signUp({ email, password: PASSWORD });
    const first = await linkFor(email);
    const mailsBefore = inbox.length;

    const { error } = await client().auth.resend({ type: 'signup', email });
    expect(error).toBeNull();
    let second = await linkFor(email);
    for (let i = 0; i < 100 && second.href === first.href; i++) {
      await new Promise((r) => setTimeout(r, 100));
      second = await linkFor(email);
    }
    expect(second.href).not.toBe(first.href);
    expect(inbox.length).toBe(mailsBefore + 1);

    // The old link no longer works (the fragment says why); the new one confirms.
    const old = await fetch(`${s.url}${first.pathname}${first.search}`, { redirect: 'manual' });
    expect(new URLSearchParams(new URL(old.headers.get('location')!).hash.slice(1)).get('error_code')).toBe('otp_expired');
    const ok = await fetch(`${s.url}${second.pathname}${second.search}`, { redirect: 'manual' });
    expect(new URLSearchParams(new URL(ok.headers.get('location')!).hash.slice(1)).get('access_token')).toBeTruthy();

    // Confirmed, or unknown: answered alike, and nothing is mailed.
    const count = inbox.length;
    expect((await client().auth.resend({ type: 'signup', email })).error).toBeNull();
    expect((await client().auth.resend({ type: 'signup', email: newEmail() })).error).toBeNull();
    expect(inbox.length).toBe(count);

    // Only signup confirmations; a malformed email is refused.
    const wrongType = await fetch(`${s.url}/auth/v1/resend`, {
      method: 'POST',
      headers: { apikey: s.config.auth.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'sms', email }),
    });
    expect(wrongType.status).toBe(400);
    expect(((await wrongType.json()) as { error_code: string }).error_code).toBe('validation_failed');
  });

  it('resend is limited to 5 an hour per email (429 over_email_send_rate_limit)', async () => {
    const email = newEmail();
    for (let i = 0; i < 5; i++) expect((await client().auth.resend({ type: 'signup', email })).error).toBeNull();
    const sixth = await client().auth.resend({ type: 'signup', email });
    expect(sixth.error?.status).toBe(429);
    expect(sixth.error?.code).toBe('over_email_send_rate_limit');
  });

  it('a mailed confirmation is proof: the owner email of an API-registered tenant links on first use', async () => {
    const tenant = await s.register({ owner_email: newEmail() });
    await client().auth.signUp({ email: tenant.email, password: PASSWORD });
    const link = await linkFor(tenant.email);
    await fetch(`${s.url}${link.pathname}${link.search}`, { redirect: 'manual' });
    const { data } = await client().auth.signInWithPassword({ email: tenant.email, password: PASSWORD });
    const me = await s.call('/api/v1/me', { bearer: data.session!.access_token });
    expect(me.status).toBe(200);
    expect(me.body.tenant_id).toBe(tenant.tenantId);
  });

  it('recovery: the mailed token signs in through verifyOtp and allows a new password', async () => {
    const email = newEmail();
    await client().auth.signUp({ email, password: PASSWORD });
    await fetch(`${s.url}${(await linkFor(email)).pathname}${(await linkFor(email)).search}`, { redirect: 'manual' });
    const before = inbox.length;
    const sent = await client().auth.resetPasswordForEmail(email);
    expect(sent.error).toBeNull();
    let link = await linkFor(email);
    for (let i = 0; i < 100 && (inbox.length === before || link.searchParams.get('type') !== 'recovery'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      link = await linkFor(email);
    }
    expect(link.searchParams.get('type')).toBe('recovery');
    const sb = client();
    const verified = await sb.auth.verifyOtp({ token_hash: link.searchParams.get('token')!, type: 'recovery' });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.access_token).toBeTruthy();
    expect((await sb.auth.updateUser({ password: 'a recovered password' })).error).toBeNull();
    expect((await client().auth.signInWithPassword({ email, password: 'a recovered password' })).error).toBeNull();
    // The token was consumed.
    const again = await client().auth.verifyOtp({ token_hash: link.searchParams.get('token')!, type: 'recovery' });
    expect(again.error?.code).toBe('otp_expired');
  });
});

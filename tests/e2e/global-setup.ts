/**
 * Before the dashboard tests: a fresh Next build when the pages changed, a local SMTP server
 * that drops every mail as a JSON file (the tests run in worker processes and read the files),
 * and the real service on a free port with ADMIN_EMAILS set. Returns the teardown.
 * Without Chromium the tests are skipped (E2E_SKIP), as the vitest browser tests are.
 */
import { simpleParser } from 'mailparser';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { startAppServer } from '../browser/app-server';
import { ensureNextBuild } from '../browser/next-build';
import { useMemoryTmpdir } from '../memory-tmpdir';
import { missing } from '../needs';
import { pgliteTemplate } from '../pglite-template';
import { ADMIN_EMAIL, E2E_ADMIN_TOKEN, SCREENSHOT_DIR, SECOND_ADMIN_EMAIL, TIMING_ADMIN_EMAIL } from './support';

export default async function globalSetup(): Promise<() => Promise<void>> {
  if (missing.chromium) {
    process.env.E2E_SKIP = missing.chromium;
    return async () => {};
  }
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await ensureNextBuild();
  const removeTmpdir = useMemoryTmpdir();
  // The service starts on a copy of the migrated database vitest's run keeps in .amp/cache (made
  // here when missing), not with initdb and every migration again.
  process.env.AMP_TEST_PGLITE_TEMPLATE = (await pgliteTemplate()).dir;

  const mailDir = mkdtempSync(path.join(tmpdir(), 'amp-e2e-mail-'));
  let n = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const to = (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((a) =>
            a.value.map((v) => (v.address ?? '').toLowerCase()),
          );
          writeFileSync(
            path.join(mailDir, `${String(++n).padStart(5, '0')}.json`),
            JSON.stringify({ to, subject: mail.subject ?? '', text: mail.text ?? '' }),
          );
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;

  // Webhook receivers of the tests listen on 127.0.0.1 over http; a failed delivery is retried once, half a second later.
  const server = await startAppServer({
    SMTP_URL: smtpUrl,
    ADMIN_EMAILS: `${ADMIN_EMAIL},${SECOND_ADMIN_EMAIL},${TIMING_ADMIN_EMAIL}`,
    ADMIN_TOKEN: E2E_ADMIN_TOKEN,
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_RETRY_SCHEDULE_MS: '0,500',
    // Every spec's users sign up, sign in and create tenants from 127.0.0.1: the per-IP limits
    // (20 sign-ups and registrations an hour, 30 sign-ins a minute) would refuse the whole run's.
    REGISTER_LIMIT_PER_HOUR: '10000',
    SIGN_IN_LIMIT_PER_MINUTE: '10000',
  });
  process.env.E2E_BASE_URL = server.url;
  process.env.E2E_MAIL_DIR = mailDir;
  process.env.E2E_DATA_DIR = server.dataDir;

  return async () => {
    await server.stop();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    rmSync(mailDir, { recursive: true, force: true });
    removeTmpdir();
  };
}

/**
 * A local SMTP server for the tests (smtp-server + mailparser): the service's SMTP_URL points
 * at it, and a test waits for the mail sent to an address and reads the link in it.
 */
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mailbox {
  /** smtp://127.0.0.1:<port> (plain, no authentication; nodemailer does not try STARTTLS when it is not offered). */
  url: string;
  /** The first mail to `to` whose subject matches, waiting up to `timeoutMs`. */
  waitFor(to: string, subject: RegExp, timeoutMs?: number): Promise<ParsedMail>;
  /** Every mail to `to` whose subject matches, received so far. */
  all(to: string, subject: RegExp): ParsedMail[];
  close(): Promise<void>;
}

const recipients = (mail: ParsedMail) =>
  (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));

export async function startMailbox(): Promise<Mailbox> {
  const received: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push(mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    async waitFor(to, subject, timeoutMs = 30_000) {
      const started = Date.now();
      for (;;) {
        const mail = received.find((m) => recipients(m).includes(to.toLowerCase()) && subject.test(m.subject ?? ''));
        if (mail) return mail;
        if (Date.now() - started > timeoutMs)
          throw new Error(
            `no mail to ${to} matching ${subject} within ${timeoutMs} ms (received: ${received.map((m) => m.subject).join(', ') || 'none'})`,
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    all: (to, subject) => received.filter((m) => recipients(m).includes(to.toLowerCase()) && subject.test(m.subject ?? '')),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The identity provider's verification link in a mail's text. */
export function verifyLink(mail: ParsedMail): string {
  const link = /https?:\/\/\S+\/auth\/v1\/verify\?\S+/.exec(mail.text ?? '')?.[0];
  if (!link) throw new Error(`no verification link in the mail:\n${mail.text}`);
  return link;
}

import type { Transporter } from 'nodemailer';
import type { Config } from '../config';

/** One mail the service sends: sign-up and recovery links, webhook failure alerts. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

const transports = new Map<string, Transporter>();

/** nodemailer is loaded with the first mail, not at every start (a service without SMTP_URL never loads it). */
async function transportFor(smtpUrl: string): Promise<Transporter> {
  let t = transports.get(smtpUrl);
  if (!t) {
    const { default: nodemailer } = await import('nodemailer');
    // The URL carries everything (smtps:// for implicit TLS, credentials, ?ignoreTLS=true ...).
    t = transports.get(smtpUrl) ?? nodemailer.createTransport(smtpUrl);
    transports.set(smtpUrl, t);
  }
  return t;
}

/**
 * Sends `mail` through SMTP_URL, from `no-reply@` the host of PUBLIC_BASE_URL. Without SMTP_URL
 * nothing is sent and false is returned: each caller says what it does instead (logs the link or
 * the alert for the operator). A refused or unreachable SMTP server throws.
 */
export async function sendMail(config: Pick<Config, 'smtpUrl' | 'publicBaseUrl'>, mail: Mail): Promise<boolean> {
  if (!config.smtpUrl) return false;
  const host = new URL(config.publicBaseUrl).hostname;
  const from = `Agent Module Platform <no-reply@${host.includes('.') ? host : `${host}.localdomain`}>`;
  await (await transportFor(config.smtpUrl)).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
  return true;
}

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

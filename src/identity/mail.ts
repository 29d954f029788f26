import { escapeHtml, sendMail } from '../lib/mail';
import type { Services } from '../services';

export interface AuthMail {
  to: string;
  kind: 'signup' | 'recovery';
  link: string;
}

const SUBJECTS = { signup: 'Confirm your sign-up', recovery: 'Reset your password' } as const;
const BODIES = {
  signup: 'Follow this link to confirm your email address and finish signing up:',
  recovery: 'Follow this link to choose a new password. If you did not ask for it, ignore this mail.',
} as const;

/**
 * Sends a confirmation or recovery link by mail (SMTP_URL, through src/lib/mail.ts). Without
 * SMTP_URL nothing is sent: sign-ups are confirmed at once, and recovery links are logged for the
 * operator (documented in docs/auth.md): the link carries a one-time token, never a password.
 */
export async function sendAuthMail(svc: Services, mail: AuthMail): Promise<void> {
  const sent = await sendMail(svc.config, {
    to: mail.to,
    subject: SUBJECTS[mail.kind],
    text: `${BODIES[mail.kind]}\n\n${mail.link}\n`,
    html: `<p>${BODIES[mail.kind]}</p><p><a href="${escapeHtml(mail.link)}">${escapeHtml(mail.link)}</a></p>`,
  });
  if (!sent) {
    svc.logger.info(
      { email: mail.to, kind: mail.kind, link: mail.link },
      `${mail.kind} link (SMTP_URL is not set, so it is logged for the operator instead of mailed)`,
    );
  }
}

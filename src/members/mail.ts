import { escapeHtml, sendMail } from '../lib/mail';
import type { Services } from '../services';

export interface InvitationMail {
  to: string;
  tenantName: string;
  role: string;
  link: string;
  /** An ownership transfer to confirm, rather than an invitation to join. */
  transfer?: boolean;
}

/**
 * Mails an invitation's accept link (SMTP_URL). Without SMTP_URL, or when sending fails, the link
 * is logged for the operator, as sign-up links are (docs/organizations.md): the inviter also got
 * it in the answer. After the commit: a mail is not transactional, the invitation stands.
 */
export async function sendInvitationMail(svc: Services, mail: InvitationMail): Promise<void> {
  const subject = mail.transfer ? `Confirm that you take over ${mail.tenantName}` : `You are invited to ${mail.tenantName} as ${mail.role}`;
  const body = mail.transfer
    ? `The owner of ${mail.tenantName} asks you to become its owner. Sign in with ${mail.to} and follow this link to confirm:`
    : `You are invited to join ${mail.tenantName} as ${mail.role}. Sign in (or sign up) with ${mail.to} and follow this link to accept:`;
  let sent = false;
  try {
    sent = await sendMail(svc.config, {
      to: mail.to,
      subject,
      text: `${body}\n\n${mail.link}\n\nThe link works once and expires in 7 days.\n`,
      html: `<p>${escapeHtml(body)}</p><p><a href="${escapeHtml(mail.link)}">${escapeHtml(mail.link)}</a></p><p>The link works once and expires in 7 days.</p>`,
    });
  } catch (err) {
    svc.logger.warn({ err, email: mail.to }, 'invitation mail could not be sent');
  }
  if (!sent) {
    svc.logger.info(
      { email: mail.to, link: mail.link },
      'invitation link (not mailed: SMTP_URL is not set or sending failed, so it is logged for the operator)',
    );
  }
}

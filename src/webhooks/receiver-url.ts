import { assertPublicUrl, SsrfError } from '../net/ssrf';
import { invalidRequest } from '../server/errors';
import type { Services } from '../services';

/**
 * A receiver must be https:// and resolve only to public addresses (WEBHOOK_ALLOW_PRIVATE=1
 * lifts both, for development and tests). Checked when saved and again at every attempt.
 * Resolves the name, opens no socket. Returns the normalised URL.
 */
export async function checkReceiverUrl(svc: Services, url: string): Promise<string> {
  try {
    const checked = await assertPublicUrl(url, { requireHttps: true, allowPrivate: svc.config.webhooks.allowPrivate });
    if (checked.url.username || checked.url.password) {
      throw invalidRequest('The receiver URL must not carry credentials.', [{ path: 'url', message: 'Credentials in URL' }]);
    }
    return checked.url.href;
  } catch (err) {
    if (err instanceof SsrfError) throw invalidRequest(`The receiver URL is not allowed: ${err.message}`, [{ path: 'url', message: err.message }]);
    throw err;
  }
}

import { assertPublicUrl, SsrfError } from '../net/ssrf';
import { invalidRequest } from '../lib/errors';
import type { Services } from '../services';

/** A name server that does not answer must not hold the request. */
const LOOKUP_TIMEOUT_MS = 3000;

/**
 * A receiver must be https:// and must not resolve to a loopback, private or otherwise
 * non-public address (WEBHOOK_ALLOW_PRIVATE=1 lifts both, for development and tests). A name
 * that does not resolve (yet) is accepted: it cannot reach anything now, and every attempt
 * checks the address again before it connects. Opens no socket. Returns the normalised URL.
 */
export async function checkReceiverUrl(svc: Services, url: string): Promise<string> {
  const refuse = (message: string) => invalidRequest(`The receiver URL is not allowed: ${message}`, [{ path: 'url', message }]);
  let receiver: URL;
  try {
    receiver = (
      await assertPublicUrl(url, { requireHttps: true, allowPrivate: svc.config.webhooks.allowPrivate, lookupTimeoutMs: LOOKUP_TIMEOUT_MS })
    ).url;
  } catch (err) {
    if (!(err instanceof SsrfError)) throw err;
    if (err.code !== 'dns_failure') throw refuse(err.message);
    receiver = new URL(url); // parsed and protocol-checked before the lookup failed
  }
  if (receiver.username || receiver.password) throw refuse('The URL must not carry credentials.');
  return receiver.href;
}

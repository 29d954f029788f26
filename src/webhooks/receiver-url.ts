import dns from 'node:dns';
import { assertPublicUrl, SsrfError, type LookupAll } from '../net/ssrf';
import { invalidRequest } from '../server/errors';
import type { Services } from '../services';

/** A name server that does not answer must not hold the request. */
const LOOKUP_TIMEOUT_MS = 3000;

const lookupWithTimeout: LookupAll = (hostname) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('DNS timeout')), LOOKUP_TIMEOUT_MS);
    dns.promises.lookup(hostname, { all: true, verbatim: true }).then(
      (answers) => {
        clearTimeout(timer);
        resolve(answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })));
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });

/**
 * A receiver must be https:// and must not resolve to a loopback, private or otherwise
 * non-public address (WEBHOOK_ALLOW_PRIVATE=1 lifts both, for development and tests, and then
 * no lookup is made). A name that does not resolve (yet) is accepted: it cannot reach anything
 * now, and every attempt checks the address again before it connects. Opens no socket.
 * Returns the normalised URL.
 */
export async function checkReceiverUrl(svc: Services, url: string): Promise<string> {
  const refuse = (message: string) => invalidRequest(`The receiver URL is not allowed: ${message}`, [{ path: 'url', message }]);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('The URL is not valid.');
  }
  if (parsed.username || parsed.password) throw refuse('The URL must not carry credentials.');
  const allowPrivate = svc.config.webhooks.allowPrivate;
  if (allowPrivate) {
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw refuse(`Only http and https URLs are allowed, not ${parsed.protocol.replace(/:$/, '')}.`);
    return parsed.href;
  }
  try {
    await assertPublicUrl(parsed, { requireHttps: true, lookup: lookupWithTimeout });
  } catch (err) {
    if (err instanceof SsrfError && err.code !== 'dns_failure') throw refuse(err.message);
    if (!(err instanceof SsrfError)) throw err;
  }
  return parsed.href;
}

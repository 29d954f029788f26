import { FetchError, guardedFetch, SsrfError } from '../net/ssrf';
import type { Services } from '../services';

/** What one HTTP attempt came to. */
export interface AttemptOutcome {
  success: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first 1 KB of the answer. */
  responseBody: string | null;
}

const RESPONSE_EXCERPT_BYTES = 1024;

/**
 * POSTs the body to the receiver through the SSRF guard: the address is checked again now (it
 * may resolve elsewhere than when the subscription was made) and the socket goes to the checked
 * address. Success is a 2xx within WEBHOOK_TIMEOUT_MS; redirects are not followed (a 3xx fails).
 */
export async function postToReceiver(svc: Services, url: string, body: string, headers: Record<string, string>): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await guardedFetch(url, {
      method: 'POST',
      body,
      headers,
      timeoutMs: svc.config.webhooks.timeoutMs,
      maxBytes: RESPONSE_EXCERPT_BYTES,
      maxRedirects: 0,
      decompress: false,
      keepAlive: true,
      requireHttps: true,
      allowPrivate: svc.config.webhooks.allowPrivate,
    });
    const success = res.status >= 200 && res.status < 300;
    return {
      success,
      statusCode: res.status,
      latencyMs: elapsed(),
      error: success ? null : `The receiver answered ${res.status}.`,
      responseBody: res.body.length ? res.body.toString('utf8').replaceAll('\u0000', '') : null,
    };
  } catch (err) {
    const message = err instanceof SsrfError || err instanceof FetchError ? err.message : 'The request failed.';
    return { success: false, statusCode: null, latencyMs: elapsed(), error: message, responseBody: null };
  }
}

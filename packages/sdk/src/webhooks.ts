/**
 * Verifying a delivery's Standard Webhooks signature: `webhook-signature` is `v1,` + base64
 * HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${rawBody}`, space-separated when a rotated-out
 * secret still signs (`v1,<new> v1,<old>`). The key: for a `whsec_` secret the bytes its base64
 * (or base64url) part decodes to, for any other secret its UTF-8 bytes, as the service signs.
 * node:crypto only; no dependency.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AmpError } from './errors.js';
import type { WebhookEnvelope } from './types.js';

export type WebhookVerificationReason =
  'missing_headers' | 'invalid_timestamp' | 'timestamp_too_old' | 'timestamp_too_new' | 'invalid_signature' | 'invalid_payload';

/** A delivery that did not verify; `reason` says why. */
export class WebhookVerificationError extends AmpError {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (either way). Default 300. */
  toleranceSeconds?: number;
  /** The current time (for tests), in milliseconds since the epoch. */
  now?: number;
}

const PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+)$/;

/** The HMAC key of `webhook-signature` for a webhook's secret (as the service derives it). */
export function webhookSigningKey(secret: string): Buffer {
  if (secret.startsWith(PREFIX)) {
    const encoded = secret.slice(PREFIX.length);
    if (BASE64.test(encoded) && encoded.replace(/=+$/, '').length % 4 !== 1) {
      const key = Buffer.from(encoded, encoded.includes('-') || encoded.includes('_') ? 'base64url' : 'base64');
      if (key.length > 0) return key;
    }
  }
  return Buffer.from(secret, 'utf8');
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

/** The `webhook-signature` value for a delivery (what the service sends): for tests and tools. */
export function signWebhook(secret: string, id: string, timestamp: number, rawBody: string | Uint8Array): string {
  const mac = createHmac('sha256', webhookSigningKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * Verifies a delivery against `secret` and returns its parsed body. `rawBody` must be the bytes
 * received (never re-serialized JSON). Throws {@link WebhookVerificationError} when a header is
 * missing, the timestamp is outside the tolerance or no `v1` signature matches.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): WebhookEnvelope {
  const id = header(headers, 'webhook-id');
  const timestampHeader = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampHeader || !signatures) {
    throw new WebhookVerificationError('missing_headers', 'The webhook-id, webhook-timestamp and webhook-signature headers are required.');
  }
  if (!/^\d+$/.test(timestampHeader)) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not a Unix time.');
  const timestamp = Number(timestampHeader);
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (timestamp < now - tolerance) throw new WebhookVerificationError('timestamp_too_old', 'The delivery is older than the tolerance.');
  if (timestamp > now + tolerance) throw new WebhookVerificationError('timestamp_too_new', 'The delivery is dated in the future.');

  const expected = Buffer.from(signWebhook(secret, id, timestamp, rawBody).slice(3), 'base64');
  let matched = false;
  for (const part of signatures.split(' ')) {
    const comma = part.indexOf(',');
    if (comma < 0 || part.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(part.slice(comma + 1), 'base64');
    // timingSafeEqual needs equal lengths; the length of an HMAC-SHA256 is not a secret.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('invalid_signature', 'No webhook-signature matches the secret.');

  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  try {
    return JSON.parse(text) as WebhookEnvelope;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not JSON.');
  }
}

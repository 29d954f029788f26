import { createHmac } from 'node:crypto';
import { EVENT_PAYLOAD_CAP } from '../executions/present';
import { webhookSigningKey } from '../lib/secrets';

export interface Envelope {
  id: string;
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
  /** Present (true) only on test sends (POST /api/v1/webhooks/{id}/test). */
  test?: true;
}

/**
 * The exact bytes POSTed for an event: `{id, event, timestamp, data}` (docs/webhooks.md). Built from the
 * stored event, so every attempt and every replay sends the same bytes. Execution events are
 * already cut to fit when recorded; anything else still over 64 KB carries a summary instead.
 * `full_result_url` is sent absolute, on `baseUrl` (PUBLIC_BASE_URL): execution events record it
 * as a path, so events recorded before a change of PUBLIC_BASE_URL point at the current address.
 */
export function envelopeBody(envelope: Envelope, baseUrl: string): string {
  const stored = envelope.data.full_result_url;
  if (typeof stored === 'string' && stored.startsWith('/')) {
    envelope = { ...envelope, data: { ...envelope.data, full_result_url: baseUrl + stored } };
  }
  const body = JSON.stringify(envelope);
  if (Buffer.byteLength(body) <= EVENT_PAYLOAD_CAP) return body;
  const text = JSON.stringify(envelope.data);
  const data: Record<string, unknown> = { summary: `${text.slice(0, 1024)}…`, bytes: Buffer.byteLength(text), truncated: true };
  const executionId = envelope.data.execution_id;
  if (typeof executionId === 'string') data.full_result_url = `${baseUrl}/api/v1/executions/${executionId}`;
  return JSON.stringify({ ...envelope, data });
}

/** `X-Webhook-Signature`: lower-case hex HMAC-SHA256 of the exact body bytes (docs/webhooks.md, "Two signatures"). */
export function signBody(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

export interface DeliveryHeaders {
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
}

/**
 * Standard Webhooks `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed
 * with webhookSigningKey(secret), so `new Webhook(secret)` (generated `whsec_` secrets) or
 * `new Webhook(secret, { format: 'raw' })` (other caller-chosen secrets) verifies it.
 */
export function standardSignature(secret: string, id: string, timestamp: string, body: string): string {
  return `v1,${createHmac('sha256', webhookSigningKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

/** What a subscription adds to its requests (docs/webhooks.md, Custom headers and Rotating the secret). */
export interface DeliveryExtras {
  /** A rotated-out secret still in its overlap: `webhook-signature` carries its signature too. */
  previousSecret?: string | null;
  /** The subscription's custom headers (checked on input: never a name set below). */
  headers?: Record<string, string>;
  /** A test send: `X-Webhook-Test: 1`. */
  test?: boolean;
}

/**
 * The headers of one attempt. During a secret's overlap `webhook-signature` is `v1,<new> v1,<old>`
 * (space-separated, as Standard Webhooks allows), so a receiver holding either secret verifies;
 * `X-Webhook-Signature` holds one value and is always the current secret's.
 */
export function deliveryHeaders(
  secret: string,
  body: string,
  meta: DeliveryHeaders,
  now = Date.now(),
  extras: DeliveryExtras = {},
): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  let signature = standardSignature(secret, meta.eventId, timestamp, body);
  if (extras.previousSecret) signature += ` ${standardSignature(extras.previousSecret, meta.eventId, timestamp, body)}`;
  return {
    ...extras.headers,
    ...(extras.test ? { 'x-webhook-test': '1' } : {}),
    'content-type': 'application/json',
    'user-agent': 'AgentModulePlatform-Webhooks/1.0',
    'x-webhook-signature': signBody(secret, body),
    'x-webhook-id': meta.eventId,
    'x-webhook-event': meta.eventType,
    'x-webhook-delivery': meta.deliveryId,
    'x-webhook-attempt': String(meta.attempt),
    'webhook-id': meta.eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signature,
  };
}

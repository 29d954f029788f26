/**
 * The `http` runtime: the platform POSTs `{"action": ..., "input": ...}` to the publisher's
 * endpoint through the SSRF guard (checked again at call time, connection pinned to the checked
 * addresses, no redirects), signed with the module's signing secret:
 *
 *   Content-Type: application/json
 *   X-Module-Action: <action name>
 *   X-Module-Timestamp: <unix seconds>
 *   X-Module-Signature: <lower-case hex HMAC-SHA256(secret, exact body bytes)>
 *
 * Answers: 2xx with a JSON body -> the whole parsed body is the output; 4xx -> `invalid_input`
 * with the body's `message` (or `error`) when present (the publisher rejected the input), except
 * 401/403/407/429 -> `module_error` and 408 -> `timeout`; 3xx, 5xx, a non-JSON or over-1-MiB body,
 * a network failure -> `module_error`; no answer within the action's timeout_ms -> `timeout`.
 * The secret never appears in messages or logs.
 */
import { createHmac } from 'node:crypto';
import type { ModuleRuntime } from '../../db/schema';
import { decryptSecret } from '../../lib/secrets';
import { FetchError, guardedFetch, SsrfError } from '../../net/ssrf';
import type { SandboxOutcome } from './javascript';

const MAX_RESPONSE_BYTES = 1024 * 1024;
const MAX_MESSAGE_CHARS = 500;

export interface HttpCall {
  runtime: Extract<ModuleRuntime, { type: 'http' }>;
  action: string;
  input: unknown;
  timeoutMs: number;
  allowPrivate: boolean;
  encryptionKey: Buffer;
}

/**
 * The signature of a request: lower-case hex HMAC-SHA256, with the signing secret, of
 * `<X-Module-Timestamp>.<exact body bytes>`. Covering the timestamp lets the endpoint refuse a
 * captured request replayed later (check the timestamp is recent).
 */
export function signModuleRequest(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

export async function runHttpModule(call: HttpCall): Promise<SandboxOutcome> {
  let secret: string;
  try {
    secret = decryptSecret(call.encryptionKey, call.runtime.secret_encrypted);
  } catch {
    return { ok: false, code: 'module_error', message: "The module's signing secret cannot be decrypted on this server." };
  }
  const body = JSON.stringify({ action: call.action, input: call.input });
  const timestamp = String(Math.floor(Date.now() / 1000));
  let res;
  try {
    res = await guardedFetch(call.runtime.endpoint, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-module-action': call.action,
        'x-module-timestamp': timestamp,
        'x-module-signature': signModuleRequest(secret, timestamp, body),
      },
      timeoutMs: call.timeoutMs,
      maxBytes: MAX_RESPONSE_BYTES + 1,
      maxRedirects: 0,
      allowPrivate: call.allowPrivate,
      requireHttps: !call.allowPrivate,
    });
  } catch (err) {
    if (err instanceof SsrfError)
      return { ok: false, code: 'module_error', message: "The module's endpoint is not allowed (it must be a public https URL)." };
    if (err instanceof FetchError && err.code === 'timeout')
      return { ok: false, code: 'timeout', message: `The module's endpoint did not answer within ${call.timeoutMs} ms.` };
    const detail = err instanceof FetchError ? ` ${err.message}` : '';
    return { ok: false, code: 'module_error', message: `The module's endpoint could not be reached.${detail}` };
  }

  if (res.truncated) return { ok: false, code: 'module_error', message: "The module's response exceeds 1 MiB." };
  const parsed = parseJson(res.body);
  const status = res.status;
  if (status >= 200 && status < 300) {
    if (!parsed.ok)
      return { ok: false, code: 'module_error', message: `The module's endpoint answered HTTP ${status} without a JSON body.` };
    return { ok: true, output: parsed.value };
  }
  const told = parsed.ok ? publisherMessage(parsed.value) : undefined;
  const suffix = told ? `: ${told}` : '.';
  if (status === 408) return { ok: false, code: 'timeout', message: `The module's endpoint timed out (HTTP 408)${suffix}` };
  if (status >= 400 && status < 500 && ![401, 403, 407, 429].includes(status)) {
    return { ok: false, code: 'invalid_input', message: told ?? `The module rejected the input (HTTP ${status}).` };
  }
  if (status >= 300 && status < 400)
    return { ok: false, code: 'module_error', message: `The module's endpoint answered HTTP ${status}; redirects are not followed.` };
  return { ok: false, code: 'module_error', message: `The module's endpoint answered HTTP ${status}${suffix}` };
}

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (body.length === 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

/** `message`, else `error` (a string, or an object with a string `message`), cut to one short line. */
function publisherMessage(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { message?: unknown; error?: unknown };
  const candidate =
    typeof v.message === 'string'
      ? v.message
      : typeof v.error === 'string'
        ? v.error
        : typeof v.error === 'object' && v.error !== null && typeof (v.error as { message?: unknown }).message === 'string'
          ? (v.error as { message: string }).message
          : undefined;
  if (!candidate) return undefined;
  const line = candidate.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…` : line;
}

import type { IncomingMessage } from 'node:http';
import { identifierBase62 } from '../../lib/ids';
import { exceedsJsonDepth, TOO_DEEP_MESSAGE } from '../../lib/json-depth';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A valid incoming X-Request-Id is echoed; anything else gets a fresh `req_` id. */
export function resolveRequestId(incoming: string | string[] | undefined): string {
  const value = Array.isArray(incoming) ? incoming[0] : incoming;
  return value && REQUEST_ID.test(value) ? value : `req_${identifierBase62(20)}`;
}

/** The client address: the socket's, or the first X-Forwarded-For hop when TRUST_PROXY=1. */
export function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const fwd = req.headers['x-forwarded-for'];
    const first = (Array.isArray(fwd) ? fwd[0] : fwd)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * How long a request's body may take to arrive once the handler starts reading it. Without a
 * bound, a client that declares more bytes than it sends (or never ends a chunked body, or
 * trickles it) holds its request unanswered until Node's own request timeout, minutes later.
 */
export const BODY_TIMEOUT_MS = 10_000;

export type BodyResult =
  | { kind: 'empty' }
  | { kind: 'json'; value: unknown }
  /** `tooDeep`: valid JSON, but nested deeper than MAX_JSON_DEPTH (not a parse error). `timedOut`: the body did not arrive within its time. */
  | { kind: 'invalid'; message: string; tooDeep?: true; timedOut?: true }
  | { kind: 'too_large' };

/**
 * Reads and parses the body as JSON whatever the content type says (any JSON type or none).
 * Stops reading past `limit` bytes, or when the body has not arrived within `timeoutMs` (then
 * `invalid` with `timedOut`; the rest of it is left unread). JSON nested deeper than
 * MAX_JSON_DEPTH is `invalid`.
 */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES, timeoutMs = BODY_TIMEOUT_MS): Promise<BodyResult> {
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 §6.3): nothing to read.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return { kind: 'empty' };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return { kind: 'too_large' };
  // With a declared length the parser delivers no more than it, which fits the limit.
  const chunks = await receiveBody(req, Number.isFinite(declared) ? Infinity : limit, timeoutMs);
  if (chunks === 'too_large') return { kind: 'too_large' };
  if (chunks === 'timeout') {
    return { kind: 'invalid', message: `The request body did not arrive within ${timeoutMs / 1000} s of the request.`, timedOut: true };
  }
  let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // Only a body that is not JSON can be blank: the check stays off the path of every valid one.
    if (text.trim() === '') return { kind: 'empty' };
    return { kind: 'invalid', message: `The request body is not valid JSON: ${(err as Error).message}` };
  }
  if (exceedsJsonDepth(value)) return { kind: 'invalid', message: TOO_DEEP_MESSAGE, tooDeep: true };
  return { kind: 'json', value };
}

/**
 * The body's chunks, read with listeners (the async iterator was ~3% of an execute request's
 * CPU), or 'too_large' past `limit` bytes (the request is destroyed), or 'timeout' when it has
 * not ended within `timeoutMs` (reading stops; Node discards what still comes once the answer is
 * sent). Rejects when the request closes before its body ends.
 */
function receiveBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer[] | 'too_large' | 'timeout'> {
  const chunks: Buffer[] = [];
  if (req.readableEnded) return Promise.resolve(chunks);
  // Closed before its end already (the client left while the request was being authenticated).
  if (req.destroyed) return Promise.reject(new Error('The request ended before its body.'));
  return new Promise((resolve, reject) => {
    let size = 0;
    const stop = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const settle = (result: Buffer[] | 'too_large' | 'timeout') => {
      stop();
      if (result === 'timeout') req.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // A chunked body past the limit may go on without end: the connection goes with it.
      settle('too_large');
      req.destroy();
    };
    const onEnd = () => settle(chunks);
    const onError = (err: Error) => {
      stop();
      reject(err);
    };
    // Every request closes after its end; an Error (with its stack) only when it closed before it.
    const onClose = () => {
      if (!req.readableEnded) onError(new Error('The request ended before its body.'));
    };
    const timer = setTimeout(() => settle('timeout'), timeoutMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

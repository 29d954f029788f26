/**
 * `amp webhooks listen`: reads the tenant's event stream (`GET /api/v1/events/stream`,
 * Server-Sent Events) and POSTs each event to a local URL, signed like a real delivery
 * (Standard Webhooks `webhook-id` / `webhook-timestamp` / `webhook-signature`, and the hex
 * `X-Webhook-Signature`) with a local secret, so a receiver under development gets the deliveries
 * it will get in production. After a drop it reconnects with `Last-Event-ID`, so nothing is lost
 * or repeated.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { networkReason, SDK_VERSION, type FetchLike } from './core.js';
import { apiErrorFor, ConnectionError, parseRetryAfter, RateLimitError, ServerError } from './errors.js';
import type { ApiErrorBody } from './types.js';
import { signWebhook } from './webhooks.js';

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 24 random bytes. */
export function newListenSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export interface StreamEvent {
  /** The event id (`evt_...`), also the envelope's `id`. */
  id: string;
  /** The event kind. */
  event: string;
  /** The envelope JSON exactly as streamed: the body a push delivery POSTs. */
  data: string;
}

export interface ForwardResult {
  id: string;
  event: string;
  /** The receiver's status, or undefined when it did not answer. */
  status?: number;
  error?: string;
  ms: number;
}

export interface ListenOptions {
  baseUrl: string;
  /** The credential: an API key, or (a browser sign-in's bearer token, fresh at each connection) the headers to send. */
  apiKey?: string;
  authHeaders?: () => Promise<Record<string, string>>;
  forwardUrl: string;
  secret: string;
  /** Event kinds (`?events=`); all when absent. */
  events?: string[];
  /** Start after this event id (else: now). */
  after?: string;
  fetch?: FetchLike;
  signal?: AbortSignal;
  /** Called once per connection when the stream is open. */
  onConnected?: (info: { reconnect: boolean; lastEventId?: string }) => void;
  onDisconnected?: (info: { reason: string; retryInMs: number }) => void;
  onForwarded: (result: ForwardResult) => void;
  /** Forward attempt timeout, ms (default 10 000). */
  forwardTimeoutMs?: number;
  /** Reconnect when nothing (not even a heartbeat) arrived for this long, ms (default 45 000). */
  idleTimeoutMs?: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** Splits an SSE byte stream into events (the fields `id`, `event`, `data`, `retry`; comments skipped). */
export class SseParser {
  private buffer = '';
  private id = '';
  private event = '';
  private data: string[] = [];
  /** The last `retry:` the server asked for, ms. */
  retryMs: number | undefined;

  push(text: string): StreamEvent[] {
    this.buffer += text;
    const out: StreamEvent[] = [];
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, newline);
      const sepLength = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      // A lone \r at the end of the chunk may be the first half of \r\n: wait for more.
      if (this.buffer[newline] === '\r' && sepLength === 1 && newline === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(newline + sepLength);
      if (line === '') {
        if (this.data.length > 0) out.push({ id: this.id, event: this.event || 'message', data: this.data.join('\n') });
        this.event = '';
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') this.data.push(value);
      else if (field === 'event') this.event = value;
      else if (field === 'id' && !value.includes('\0')) this.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    }
    return out;
  }
}

/** The headers of a delivery of `body` as the service signs it. */
export function deliveryHeaders(secret: string, event: StreamEvent, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': `amp-cli-listen/${SDK_VERSION}`,
    'webhook-id': event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, event.id, timestamp, event.data),
    'x-webhook-signature': createHmac('sha256', secret).update(event.data, 'utf8').digest('hex'),
    'x-webhook-id': event.id,
    'x-webhook-event': event.event,
    'x-webhook-attempt': '1',
  };
}

/** Thrown for a refusal that reconnecting will not cure (401, 403, 400...). */
export class ListenRefused extends Error {}

/**
 * Streams and forwards until `signal` aborts (resolves) or the service refuses the stream for
 * good (rejects with the API error). Reconnects after drops, 429 and 5xx.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const { signal } = options;
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/api/v1/events/stream`);
  if (options.events?.length) url.searchParams.set('events', options.events.join(','));
  let lastEventId = options.after;
  let retryMs = 2000;
  let failures = 0;
  let connections = 0;

  while (!signal?.aborted) {
    const connection = new AbortController();
    const onAbort = () => connection.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let idleTimer: NodeJS.Timeout | undefined;
    const resetIdle = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => connection.abort(new Error('idle')), options.idleTimeoutMs ?? 45_000);
    };
    let reason = 'the stream ended';
    let waitMs: number | undefined;
    try {
      const headers: Record<string, string> = {
        accept: 'text/event-stream',
        ...(options.authHeaders ? await options.authHeaders() : { 'x-api-key': options.apiKey ?? '' }),
        'user-agent': `amp-cli-listen/${SDK_VERSION}`,
      };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      resetIdle();
      const res = await fetchImpl(url.toString(), { headers, signal: connection.signal });
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => '');
        let body: ApiErrorBody | undefined;
        try {
          const parsed = text ? JSON.parse(text) : undefined;
          if (parsed && typeof parsed.error === 'string') body = parsed as ApiErrorBody;
        } catch {
          /* not JSON */
        }
        const error = apiErrorFor(res.status, body, res.headers, text.slice(0, 200) || undefined);
        if (!(error instanceof RateLimitError || error instanceof ServerError)) throw new ListenRefused(error.message, { cause: error });
        reason = `${res.status} ${error.code}`;
        waitMs = (parseRetryAfter(res.headers.get('retry-after')) ?? retryMs / 1000) * 1000;
      } else {
        failures = 0;
        options.onConnected?.({ reconnect: connections > 0, lastEventId });
        connections++;
        const parser = new SseParser();
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          resetIdle();
          for (const event of parser.push(decoder.decode(chunk, { stream: true }))) {
            if (signal?.aborted) break;
            options.onForwarded(await forward(fetchImpl, options, event, signal));
            // Acknowledged only once forwarded (whatever the receiver answered): a reconnect resumes after it.
            if (event.id) lastEventId = event.id;
            resetIdle();
          }
          if (parser.retryMs !== undefined) retryMs = parser.retryMs;
          if (signal?.aborted) break;
        }
      }
    } catch (err) {
      if (err instanceof ListenRefused) throw err.cause;
      if (signal?.aborted) break;
      const cause = connection.signal.aborted ? connection.signal.reason : err;
      // Never reached at all (a wrong address, the service not running): say so and stop.
      if (connections === 0 && !connection.signal.aborted && err instanceof TypeError)
        throw new ConnectionError(`GET ${url.origin}${url.pathname} failed: ${networkReason(err)}`, { cause: err });
      reason = cause instanceof Error && cause.message === 'idle' ? 'no heartbeat' : networkReason(cause);
    } finally {
      clearTimeout(idleTimer);
      signal?.removeEventListener('abort', onAbort);
    }
    if (signal?.aborted) break;
    failures++;
    const delay = waitMs ?? Math.min(30_000, retryMs * 2 ** Math.max(0, failures - 1));
    options.onDisconnected?.({ reason, retryInMs: delay });
    await sleep(delay, signal);
  }
}

async function forward(fetchImpl: FetchLike, options: ListenOptions, event: StreamEvent, signal?: AbortSignal): Promise<ForwardResult> {
  const started = Date.now();
  const timeout = AbortSignal.timeout(options.forwardTimeoutMs ?? 10_000);
  try {
    const res = await fetchImpl(options.forwardUrl, {
      method: 'POST',
      headers: deliveryHeaders(options.secret, event),
      body: event.data,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    await res.arrayBuffer().catch(() => undefined);
    return { id: event.id, event: event.event, status: res.status, ms: Date.now() - started };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
    const message = timeout.aborted ? 'timed out' : (cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err));
    return { id: event.id, event: event.event, error: message, ms: Date.now() - started };
  }
}

import { AmpError, apiErrorFor, ConnectionError, parseRetryAfter, TimeoutError } from './errors.js';
import type { ApiErrorBody } from './types.js';

export const SDK_VERSION = '0.1.0';

/**
 * How the client authenticates: an API key (`x-api-key`) or a user's bearer token
 * (`Authorization`); with a bearer token, `tenantId` (`X-Tenant-Id`) picks which of the user's
 * tenants it acts for (default: the user's oldest membership).
 */
export type Credentials =
  { apiKey: string; bearerToken?: never; tenantId?: never } | { bearerToken: string; tenantId?: string; apiKey?: never };

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What the client tells `onRetry` before it waits and sends the request again. */
export interface RetryInfo {
  method: string;
  path: string;
  /** 1 for the first retry. */
  attempt: number;
  /** How long the client waits before the retry. */
  delayMs: number;
  /** The answer's status, or undefined after a network error. */
  status?: number;
  /** The `Retry-After` the answer carried, in seconds. */
  retryAfter?: number;
  /** The `Idempotency-Key` the request carries on every attempt (writes only). */
  idempotencyKey?: string;
  error: Error;
}

export interface ClientOptions {
  /** The service's address, e.g. `https://amp.example.com` (no `/api/v1`). */
  baseUrl: string;
  /** A fetch implementation (default: the global one). */
  fetch?: FetchLike;
  /** Retries after a 429, a 503, a 409 with `Retry-After` (an idempotent request still running) or a network error. Default 2. */
  maxRetries?: number;
  /** Per-attempt timeout in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** The first backoff delay (doubled at each retry, with jitter). Default 500 ms. */
  initialRetryDelayMs?: number;
  /** The longest wait between attempts, `Retry-After` included: a longer `Retry-After` is not waited for (the error is thrown). Default 60 000 ms. */
  maxRetryDelayMs?: number;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Called before each retry (logging, metrics). */
  onRetry?: (info: RetryInfo) => void;
}

/** Per-call options every method takes as its last argument. */
export interface RequestOptions {
  /** The `Idempotency-Key` of a write; default: one generated per call and reused by its retries. */
  idempotencyKey?: string;
  maxRetries?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  query?: object;
  body?: unknown;
  /** Writes that do not take `Idempotency-Key` set this to false. */
  idempotent?: boolean;
  /** `json` (default) or `bytes` (an ArrayBuffer, e.g. a PDF). */
  responseType?: 'json' | 'bytes';
}

const RETRY_STATUSES = new Set([429, 503]);

/** A random `Idempotency-Key` (visible ASCII, well under the 255-character limit). */
export function newIdempotencyKey(): string {
  return `amp-sdk-${globalThis.crypto.randomUUID()}`;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export class HttpClient {
  readonly baseUrl: string;
  readonly credentials: Credentials;
  readonly fetch: FetchLike;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly initialRetryDelayMs: number;
  readonly maxRetryDelayMs: number;
  private readonly defaultHeaders: Record<string, string>;
  private readonly onRetry: ((info: RetryInfo) => void) | undefined;

  constructor(credentials: Credentials, options: ClientOptions) {
    if (!credentials || (typeof credentials.apiKey !== 'string' && typeof credentials.bearerToken !== 'string')) {
      throw new AmpError('Pass { apiKey } or { bearerToken }.');
    }
    if (!options?.baseUrl) throw new AmpError('Pass { baseUrl }, e.g. https://amp.example.com.');
    if (!URL.canParse(options.baseUrl) || !/^https?:$/.test(new URL(options.baseUrl).protocol)) {
      throw new AmpError(`baseUrl must be an http:// or https:// URL, e.g. https://amp.example.com (got "${options.baseUrl}").`);
    }
    this.credentials = credentials;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.maxRetries = options.maxRetries ?? 2;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.initialRetryDelayMs = options.initialRetryDelayMs ?? 500;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
    this.defaultHeaders = options.headers ?? {};
    this.onRetry = options.onRetry;
  }

  /** The credential as a request header. */
  authHeaders(): Record<string, string> {
    if (this.credentials.apiKey !== undefined) return { 'x-api-key': this.credentials.apiKey };
    const headers: Record<string, string> = { authorization: `Bearer ${this.credentials.bearerToken}` };
    if (this.credentials.tenantId) headers['x-tenant-id'] = this.credentials.tenantId;
    return headers;
  }

  /** `fetch` with the credential (and the client's headers) added: for the MCP and A2A transports. */
  authenticatedFetch(): FetchLike {
    return (input, init) => {
      const headers = new Headers(init?.headers);
      for (const [k, v] of Object.entries({ ...this.defaultHeaders, ...this.authHeaders() })) if (!headers.has(k)) headers.set(k, v);
      return this.fetch(input, { ...init, headers });
    };
  }

  url(path: string, query?: object): string {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, String(item));
      else url.searchParams.set(k, String(v));
    }
    return url.toString();
  }

  /** The backoff before retry `attempt` (1-based): `Retry-After` when given, else exponential with full jitter. */
  retryDelay(attempt: number, retryAfter: number | undefined): number {
    if (retryAfter !== undefined) return retryAfter * 1000 + Math.floor(Math.random() * 250);
    const ceiling = Math.min(this.maxRetryDelayMs, this.initialRetryDelayMs * 2 ** (attempt - 1));
    return Math.floor(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  async request<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<T> {
    const method = spec.method;
    const isWrite = method !== 'GET';
    const idempotencyKey = isWrite && spec.idempotent !== false ? (options.idempotencyKey ?? newIdempotencyKey()) : undefined;
    const maxRetries = options.maxRetries ?? this.maxRetries;
    // A write without an idempotency key is not retried after a network error: it may have run.
    const retryNetwork = !isWrite || idempotencyKey !== undefined;
    const url = this.url(spec.path, spec.query);
    const headers: Record<string, string> = {
      accept: spec.responseType === 'bytes' ? '*/*' : 'application/json',
      'user-agent': `amp-sdk-typescript/${SDK_VERSION}`,
      ...this.defaultHeaders,
      ...this.authHeaders(),
      ...options.headers,
    };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    assertSendable(headers);
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }

    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await this.fetch(url, { method, headers, body, signal });
      } catch (cause) {
        if (options.signal?.aborted) throw cause;
        const error = timeout.aborted
          ? new TimeoutError(`${method} ${spec.path} timed out after ${options.timeoutMs ?? this.timeoutMs} ms`, { cause })
          : new ConnectionError(`${method} ${url} failed: ${networkReason(cause)}`, { cause });
        if (!retryNetwork || attempt >= maxRetries) throw error;
        const delayMs = this.retryDelay(attempt + 1, undefined);
        this.onRetry?.({ method, path: spec.path, attempt: attempt + 1, delayMs, idempotencyKey, error });
        await sleep(delayMs, options.signal);
        continue;
      }

      if (res.ok) {
        if (spec.responseType === 'bytes') return (await res.arrayBuffer()) as T;
        const text = await res.text();
        if (!text) return undefined as T;
        try {
          return JSON.parse(text) as T;
        } catch (cause) {
          const type = res.headers.get('content-type') ?? 'no content type';
          const what = `${method} ${url} answered ${res.status} with a body that is not JSON (${type})`;
          throw new AmpError(`${what}: is ${this.baseUrl} the API?`, { cause });
        }
      }

      const text = await res.text().catch(() => '');
      let parsed: ApiErrorBody | undefined;
      try {
        const json = text ? JSON.parse(text) : undefined;
        if (json && typeof json === 'object' && typeof json.error === 'string') parsed = json as ApiErrorBody;
      } catch {
        /* not JSON: the error says the status */
      }
      const error = apiErrorFor(res.status, parsed, res.headers, text && !parsed ? text.slice(0, 200) : undefined);
      const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
      const retryable =
        RETRY_STATUSES.has(res.status) ||
        // An earlier attempt with the same Idempotency-Key is still running.
        (res.status === 409 && idempotencyKey !== undefined && retryAfter !== undefined);
      if (!retryable || attempt >= maxRetries) throw error;
      const delayMs = this.retryDelay(attempt + 1, retryAfter);
      // A Retry-After beyond the cap (a monthly quota) is not waited for.
      if (delayMs > this.maxRetryDelayMs + 250) throw error;
      this.onRetry?.({ method, path: spec.path, attempt: attempt + 1, delayMs, status: res.status, retryAfter, idempotencyKey, error });
      await sleep(delayMs, options.signal);
    }
  }
}

/**
 * Header values fetch() can send: Latin-1 text without line breaks. Anything else (an API key or
 * Idempotency-Key with other characters) is the caller's mistake, refused at once rather than
 * reported, and retried, as a network failure.
 */
function assertSendable(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    // eslint-disable-next-line no-control-regex -- exactly the characters a header value may not hold
    if (/[^\x00-\xff]|[\r\n\0]/.test(value))
      throw new AmpError(`The ${name} header cannot be sent: it holds characters outside Latin-1 or a line break.`);
  }
}

/** Why fetch() failed, as the system said it (`connect ECONNREFUSED 127.0.0.1:3000`, `getaddrinfo ENOTFOUND host`). */
export function networkReason(cause: unknown): string {
  const inner = (cause as { cause?: { message?: string; code?: string } })?.cause;
  if (inner?.message) return inner.message;
  if (inner?.code) return inner.code;
  return (cause as Error)?.message ?? String(cause);
}

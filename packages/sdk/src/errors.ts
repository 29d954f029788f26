import type { ApiErrorBody, ApiErrorCode } from './types.js';

/** The base class of every error the SDK throws. */
export class AmpError extends Error {
  override name = 'AmpError';
}

export interface ApiErrorIssue {
  path: string;
  message: string;
}

/**
 * A non-2xx answer of the API: its body is `{ error, message, request_id, doc_url, ...fields }`.
 * `code` is the body's `error`; `body` is the whole parsed body (the code's own fields, e.g.
 * `required_scope`, `execution`, `retry_after`).
 */
export class ApiError extends AmpError {
  override name = 'ApiError';
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly requestId: string | undefined;
  readonly docUrl: string | undefined;
  readonly issues: ApiErrorIssue[];
  readonly body: ApiErrorBody | undefined;
  readonly headers: Headers;

  constructor(status: number, body: ApiErrorBody | undefined, headers: Headers, fallbackMessage?: string) {
    super(body?.message ?? fallbackMessage ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error ?? codeForStatus(status);
    this.requestId = body?.request_id ?? headers.get('x-request-id') ?? undefined;
    this.docUrl = body?.doc_url;
    this.issues = Array.isArray(body?.issues) ? body.issues : [];
    this.body = body;
    this.headers = headers;
  }

  /** Seconds the API asked to wait (`Retry-After`), when it did. */
  get retryAfter(): number | undefined {
    return parseRetryAfter(this.headers.get('retry-after'));
  }
}

/** 400 `invalid_request` (`issues` says which fields). */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
/** 401 `unauthorized`. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/** 403: `insufficient_scope`, `plan_required`, `policy_denied`, `forbidden`. */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
/** 404 `not_found` (also for another tenant's resource). */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 409 `conflict`. */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
/** 422 `invalid_input` (the action refused its input; `body.execution` is the failed record). */
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError';
}
/** 429: `rate_limit_exceeded`, `quota_exceeded`, `concurrency_limit_exceeded`, `key_limit_exceeded`. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
/** 5xx: `internal_error`, `module_error` (502), `unavailable` (503), `timeout` (504). */
export class ServerError extends ApiError {
  override name = 'ServerError';
}

/** The request did not get an answer (connection refused or reset, DNS, timeout). */
export class ConnectionError extends AmpError {
  override name = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The request took longer than the client's `timeoutMs`. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

/** Builds the typed error for an answer's status. */
export function apiErrorFor(status: number, body: ApiErrorBody | undefined, headers: Headers, fallbackMessage?: string): ApiError {
  const Class =
    status === 400
      ? BadRequestError
      : status === 401
        ? AuthenticationError
        : status === 403
          ? PermissionDeniedError
          : status === 404
            ? NotFoundError
            : status === 409
              ? ConflictError
              : status === 422
                ? UnprocessableEntityError
                : status === 429
                  ? RateLimitError
                  : status >= 500
                    ? ServerError
                    : ApiError;
  return new Class(status, body, headers, fallbackMessage);
}

/**
 * The code of an answer whose body is not the API's error format (a proxy's page, an empty body):
 * by its status. A 502 or 504 without the API's body came from something in front of the API, not
 * from a module, so it is `unavailable` like a 503.
 */
function codeForStatus(status: number): ApiErrorCode {
  const byStatus: Record<number, ApiErrorCode> = {
    400: 'invalid_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    409: 'conflict',
    413: 'payload_too_large',
    422: 'invalid_input',
    429: 'rate_limit_exceeded',
    502: 'unavailable',
    503: 'unavailable',
    504: 'unavailable',
  };
  return byStatus[status] ?? 'internal_error';
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (value == null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - Date.now()) / 1000);
}

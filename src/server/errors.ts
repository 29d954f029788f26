/**
 * Maps the domain's AppError (src/lib/errors.ts) to each transport: the REST error body and the
 * tRPC error code. Domain code never imports this file.
 */
import { TRPCError } from '@trpc/server';
import { errorDocUrl } from '../contract/error-docs';
import { isDatabaseUnreachable } from '../db/unreachable';
import { AppError, invalidRequest, type ErrorCode, type Issue } from '../lib/errors';

export * from '../lib/errors';

/** The tRPC code of each error code (the dashboard's tRPC client sees these). */
export const TRPC_CODES = {
  invalid_request: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  insufficient_scope: 'FORBIDDEN',
  plan_required: 'FORBIDDEN',
  policy_denied: 'FORBIDDEN',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'METHOD_NOT_SUPPORTED',
  conflict: 'CONFLICT',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  invalid_input: 'UNPROCESSABLE_CONTENT',
  rate_limit_exceeded: 'TOO_MANY_REQUESTS',
  quota_exceeded: 'TOO_MANY_REQUESTS',
  concurrency_limit_exceeded: 'TOO_MANY_REQUESTS',
  key_limit_exceeded: 'TOO_MANY_REQUESTS',
  internal_error: 'INTERNAL_SERVER_ERROR',
  module_error: 'BAD_GATEWAY',
  unavailable: 'SERVICE_UNAVAILABLE',
  timeout: 'GATEWAY_TIMEOUT',
} as const satisfies Record<ErrorCode, string>;

export type TrpcErrorCode = (typeof TRPC_CODES)[ErrorCode];

/** The JSON body of every non-2xx REST response. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
  request_id: string;
  /** The code's section of the served error reference (`${PUBLIC_BASE_URL}/docs/errors#<code>`). */
  doc_url: string;
  [field: string]: unknown;
}

/** `publicBaseUrl` is the deployment's PUBLIC_BASE_URL, whose /docs/errors explains the code. */
export function errorBody(err: AppError, requestId: string, publicBaseUrl: string): ErrorBody {
  return { error: err.code, message: err.message, request_id: requestId, doc_url: errorDocUrl(publicBaseUrl, err.code), ...err.details };
}

/**
 * What tRPC's own errors (raised before or around a procedure, with no AppError inside) stand
 * for. Anything else, INTERNAL_SERVER_ERROR included, is a generic `internal_error`.
 */
const FROM_TRPC: Partial<Record<TRPCError['code'], ErrorCode>> = {
  PARSE_ERROR: 'invalid_request',
  BAD_REQUEST: 'invalid_request',
  UNSUPPORTED_MEDIA_TYPE: 'invalid_request',
  NOT_FOUND: 'not_found',
  METHOD_NOT_SUPPORTED: 'method_not_allowed',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNAUTHORIZED: 'unauthorized',
  TOO_MANY_REQUESTS: 'rate_limit_exceeded',
};

/**
 * Any error from the procedure chain as the AppError it stands for, the same on every transport
 * (REST body, tRPC shape): domain errors as they are, input validation as `invalid_request` with
 * its issues, tRPC's own refusals by their code; everything else is a generic 500 whose message
 * says nothing internal (no SQL, driver text or stack ever reaches a client).
 */
export function toAppError(err: unknown): AppError {
  const cause = err instanceof TRPCError ? err.cause : err;
  if (cause instanceof AppError) return cause;
  if (isDatabaseUnreachable(cause)) {
    return new AppError('unavailable', 'The database is unreachable right now; retry shortly.', {}, { 'Retry-After': '5' });
  }
  if (!(err instanceof TRPCError)) return new AppError('internal_error');
  const code = FROM_TRPC[err.code];
  if (!code) return new AppError('internal_error');
  if (code === 'invalid_request') {
    const issues = validationIssues(cause);
    if (issues) {
      const first = issues[0];
      const where = first?.path ? `${first.path}: ` : '';
      return invalidRequest(`Invalid request: ${where}${first?.message ?? 'bad input'}`, issues);
    }
    if (err.code === 'PARSE_ERROR') return invalidRequest('The input is not valid JSON.', [{ path: '', message: 'Invalid JSON' }]);
  }
  // tRPC's own wording when it raised the error itself; a foreign cause's message stays inside.
  return cause ? new AppError(code) : new AppError(code, err.message);
}

function validationIssues(cause: unknown): Issue[] | undefined {
  const raw = (cause as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(raw)) return undefined;
  return raw.map((i: { path?: unknown[]; message?: string }) => ({
    path: (i.path ?? []).map((p) => (typeof p === 'object' && p !== null && 'key' in p ? String(p.key) : String(p))).join('.'),
    message: i.message ?? 'Invalid value',
  }));
}

/**
 * Maps the domain's AppError (src/lib/errors.ts) to each transport: the REST error body and the
 * tRPC error code. Domain code never imports this file.
 */
import { AppError, type ErrorCode } from '../lib/errors';

export * from '../lib/errors';

/** The tRPC code of each error code (the dashboard's tRPC client sees these). */
export const TRPC_CODES = {
  invalid_request: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  insufficient_scope: 'FORBIDDEN',
  plan_required: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'METHOD_NOT_SUPPORTED',
  conflict: 'CONFLICT',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  invalid_input: 'UNPROCESSABLE_CONTENT',
  rate_limit_exceeded: 'TOO_MANY_REQUESTS',
  quota_exceeded: 'TOO_MANY_REQUESTS',
  concurrency_limit_exceeded: 'TOO_MANY_REQUESTS',
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
  [field: string]: unknown;
}

export function errorBody(err: AppError, requestId: string): ErrorBody {
  return { error: err.code, message: err.message, request_id: requestId, ...err.details };
}

/**
 * Typed errors on the ONE table of codes (ERRORS, src/contract/errors.ts: status and default
 * message). Domain code throws AppError; src/server/errors.ts maps it to each transport (REST
 * body, tRPC code, JSON-RPC). It imports only the pure contract, so every layer may use it.
 */
import { ERRORS, type ErrorCode } from '../contract/errors';
import { planRequiredMessage } from '../contract/plans';

export { ERRORS, type ErrorCode };

/** Extra fields some codes carry (docs/decisions.md, Errors; snake_case, sent as they are). */
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  /** Response headers the error needs (Retry-After, Allow). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, details: ErrorDetails = {}, headers: Record<string, string> = {}) {
    super(message ?? ERRORS[code].message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERRORS[this.code].status;
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `No such ${what}.`);
export const conflict = (message: string) => new AppError('conflict', message);
export const invalidRequest = (message: string, issues: Issue[] = []) => new AppError('invalid_request', message, { issues });
export const insufficientScope = (scope: string) =>
  new AppError('insufficient_scope', `This operation needs the scope '${scope}'.`, { required_scope: scope });
export const planRequired = (plan: string, what: string) =>
  new AppError('plan_required', planRequiredMessage(plan, what), { required_plan: plan });

export interface Issue {
  path: string;
  message: string;
}

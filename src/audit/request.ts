import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from '../auth/principal';

/**
 * What the audit log records of the request being served, on any transport: the HTTP handler
 * opens the scope, admission names who is calling once it knows. Work outside a request (jobs,
 * the scheduler) has none, and its audit entries name the system.
 */
export interface RequestScope {
  requestId?: string;
  ip?: string;
  userAgent?: string;
  principal?: Principal;
  /** The operator calling an operator endpoint: its proven email, or none for the x-admin-token. */
  operator?: { email: string | null };
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Runs `serve` with a scope of its own that the request's stages fill in. */
export function withRequestScope<T>(serve: () => T): T {
  return storage.run({}, serve);
}

/** The scope of the request being served, if any. */
export function requestScope(): RequestScope | undefined {
  return storage.getStore();
}

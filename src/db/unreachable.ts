/** PostgreSQL error classes and socket codes that mean "the database cannot be reached now". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  // The deadlines (docs/operations.md, Database deadlines): a statement past statement_timeout,
  // a lock wait past lock_timeout, a session ended by idle_in_transaction_session_timeout.
  '57014',
  '55P03',
  '25P03',
]);
const UNREACHABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|is not queryable|Client was closed|Connection ended|Query read timeout/i;

/** A write given up before it was tried: its call has waited longer than the database's deadline allows. */
export class DatabaseDeadlineExceeded extends Error {
  constructor() {
    super('The database did not answer within its deadline.');
    this.name = 'DatabaseDeadlineExceeded';
  }
}

/**
 * Whether an error (or one of its causes: drizzle wraps the driver's) says the database could not
 * be reached, dropped the connection, or did not answer within a deadline, as opposed to a fault
 * of the statement: clients are then told to retry (503), not that the service failed.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
    if (e instanceof DatabaseDeadlineExceeded) return true;
    if (UNREACHABLE_MESSAGES.test(e.message)) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnreachable(inner))) return true;
  }
  return false;
}

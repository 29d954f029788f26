import { describe, expect, it } from 'vitest';
import { DatabaseDeadlineExceeded, isDatabaseUnreachable } from './unreachable';

const pgError = (code: string) => Object.assign(new Error('driver error'), { code });
/** As drizzle throws it: the driver's error as the cause. */
const wrapped = (cause: unknown) => new Error('Failed query: update usage_counters ...', { cause });

describe('isDatabaseUnreachable: a database past its deadlines is retryable', () => {
  it.each([
    ['statement_timeout (57014 query_canceled)', '57014'],
    ['lock_timeout (55P03 lock_not_available)', '55P03'],
    ['idle_in_transaction_session_timeout (25P03)', '25P03'],
  ])('%s', (_, code) => {
    expect(isDatabaseUnreachable(wrapped(pgError(code)))).toBe(true);
  });

  it("node-postgres' client-side query timeout, and a write given up before it was tried", () => {
    expect(isDatabaseUnreachable(wrapped(new Error('Query read timeout')))).toBe(true);
    expect(isDatabaseUnreachable(new DatabaseDeadlineExceeded())).toBe(true);
  });

  it('a fault of the statement is not', () => {
    expect(isDatabaseUnreachable(wrapped(pgError('23505')))).toBe(false);
    expect(isDatabaseUnreachable(wrapped(pgError('42P01')))).toBe(false);
  });
});

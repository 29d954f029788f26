import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { signInProblem } from '../../client/trpc/client';
import { cycleParam, invoiceMakeup } from '../../components/dashboard/usage/cycle';

describe('usage page: the cycle in the URL', () => {
  it('takes a YYYY-MM month and nothing else', () => {
    expect(cycleParam('2026-10')).toBe('2026-10');
    expect(cycleParam('2026-12')).toBe('2026-12');
    for (const bad of [null, undefined, '', '2026-13', '2026-00', '2026-1', '26-10', '2026-10-01', '2026-10&x=1'])
      expect(cycleParam(bad)).toBeUndefined();
  });
});

describe('usage page: what the projected invoice is made of', () => {
  it('names the monthly fee when the plan did not change', () => {
    expect(invoiceMakeup({ terms: { monthly_fee_usd: '29.00' }, plan_changes: [], overage_cost_usd: '1.50' })).toBe(
      'Monthly fee $29.00 + $1.50 overage',
    );
  });
  it('does not present the current plan list fee as the fee of a cycle whose plan changed (free now, pro for a day: $0.97)', () => {
    const text = invoiceMakeup({ terms: { monthly_fee_usd: '0.00' }, plan_changes: [{}, {}], overage_cost_usd: '0.00' });
    expect(text).not.toContain('$0.00,');
    expect(text).toBe('Monthly fees prorated by days on each plan + $0.00 overage');
  });
});

const refused = (status: number, message: string) =>
  new TRPCClientError(message, {
    result: {
      error: { code: -32001, message, data: { code: 'UNAUTHORIZED', httpStatus: status, app: { error: 'unauthorized', message } } },
    },
  } as never);

describe('dashboard: what a failed call says about the sign-in', () => {
  it('a session whose API key was revoked or rotated without grace must sign in again (no retry helps)', () => {
    expect(signInProblem(refused(401, 'The API key is missing, invalid or revoked.'))).toBe('signed_out');
  });
  it('a user linked to no tenant is sent to create or link one', () => {
    expect(
      signInProblem(
        refused(
          401,
          'The bearer token is valid but its user is linked to no tenant: create one with POST /api/v1/auth/register (with this bearer token), or link an existing tenant with POST /api/v1/auth/link {api_key} using a key of that tenant holding `*`.',
        ),
      ),
    ).toBe('no_tenant');
  });
  it('other errors are answers, shown with a retry', () => {
    expect(signInProblem(refused(403, 'forbidden'))).toBeUndefined();
    expect(signInProblem(new Error('network'))).toBeUndefined();
  });
});

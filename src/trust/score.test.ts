import { describe, expect, it } from 'vitest';
import { componentValues, latencyValue, NEUTRAL_VALUE, TRUST_WEIGHTS, weightedScore, type TrustInputs } from './score';

const empty: TrustInputs = {
  certification: null,
  executions: { total: 0, succeeded: 0, p95Ms: null },
  feedback: { count: 0, average: null },
};

describe('trust score components', () => {
  it('weights sum to 1', () => {
    expect(Object.values(TRUST_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('a module without any data is neutral everywhere: 50, the column default', () => {
    const c = componentValues(empty);
    for (const v of Object.values(c)) expect(v.value).toBe(NEUTRAL_VALUE);
    expect(weightedScore(c)).toBe(50);
  });

  it('maps tier, success rate, latency and ratings to 0–100', () => {
    const c = componentValues({
      certification: { tier: 'silver', ranAt: new Date(), p95Ms: 900 },
      executions: { total: 40, succeeded: 30, p95Ms: 2625 },
      feedback: { count: 3, average: 4 },
    });
    expect(c.certification).toEqual({ value: 80, weight: 0.4 });
    expect(c.success_rate).toEqual({ value: 75, weight: 0.3 });
    // Executions' p95 wins over the certification run's.
    expect(c.latency).toEqual({ value: 50, weight: 0.1 });
    expect(c.feedback).toEqual({ value: 75, weight: 0.2 });
    expect(weightedScore(c)).toBe(Math.round(0.4 * 80 + 0.3 * 75 + 0.1 * 50 + 0.2 * 75));
  });

  it('latency: 100 up to 250 ms, 0 from 5000 ms, linear between; the certification p95 without executions', () => {
    expect([0, 250, 251, 2625, 4999, 5000, 60_000].map(latencyValue)).toEqual([100, 100, 100, 50, 0, 0, 0]);
    const c = componentValues({ ...empty, certification: { tier: 'gold', ranAt: new Date(), p95Ms: 100 } });
    expect(c.latency.value).toBe(100);
    expect(c.certification.value).toBe(100);
  });

  it('extremes: everything perfect is 100, everything failing 0', () => {
    const best = componentValues({
      certification: { tier: 'gold', ranAt: new Date(), p95Ms: 1 },
      executions: { total: 5, succeeded: 5, p95Ms: 1 },
      feedback: { count: 1, average: 5 },
    });
    expect(weightedScore(best)).toBe(100);
    const worst = componentValues({
      certification: { tier: 'none', ranAt: new Date(), p95Ms: 9000 },
      executions: { total: 5, succeeded: 0, p95Ms: 9000 },
      feedback: { count: 1, average: 1 },
    });
    expect(weightedScore(worst)).toBe(8);
  });
});

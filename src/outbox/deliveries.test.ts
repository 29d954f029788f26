import { describe, expect, it } from 'vitest';
import { PLAN_FEATURES, PLAN_NAMES } from '../tenants/plans';
import { WEBHOOK_PLANS } from './deliveries';

describe('WEBHOOK_PLANS', () => {
  it('lists the plans that have webhooks', () => {
    expect([...WEBHOOK_PLANS]).toEqual(PLAN_NAMES.slice(PLAN_NAMES.indexOf(PLAN_FEATURES.webhooks.minPlan)));
  });
});

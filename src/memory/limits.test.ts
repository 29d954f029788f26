import { describe, expect, it } from 'vitest';
import { MEMORY_ENTRY_LIMITS, memoryEntryLimit, planWithMoreEntries } from './limits';

describe('memory entry limits', () => {
  it('follows the plan table', () => {
    expect(MEMORY_ENTRY_LIMITS).toEqual({ free: 1_000, pro: 50_000, business: 500_000, enterprise: null });
    expect(memoryEntryLimit('enterprise')).toBeNull();
  });

  it('names the next plan with more entries', () => {
    expect(planWithMoreEntries('free')).toBe('pro');
    expect(planWithMoreEntries('pro')).toBe('business');
    expect(planWithMoreEntries('business')).toBe('enterprise');
    expect(planWithMoreEntries('enterprise')).toBe('enterprise');
  });
});

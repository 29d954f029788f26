import { queryInteger } from '../lib/pagination';
import { z } from 'zod';
import { moduleNameInPath } from '../catalog/schema';

export const trustInput = z.strictObject({
  name: moduleNameInPath,
  history_limit: queryInteger(1, 100, 20).describe('How many score changes to return, newest first (default 20, max 100)'),
});

const component = (extra: z.ZodRawShape, description: string) =>
  z
    .object({
      value: z.number().int().describe('0–100'),
      weight: z.number().describe('Share of the score; the four weights sum to 1'),
      ...extra,
    })
    .describe(description);

export const trustView = z
  .object({
    module: z.string(),
    trust_score: z.number().int().describe('The current score, as shown by module lists, search and the directory'),
    certification_tier: z.string(),
    components: z.object({
      certification: component(
        {
          tier: z.string().nullable().describe('Tier of the latest completed run; null when never certified'),
          ran_at: z.string().nullable(),
        },
        'gold 100, silver 80, bronze 60, none 20; 50 when never certified',
      ),
      success_rate: component(
        { executions: z.number().int(), succeeded: z.number().int(), window_days: z.number().int() },
        'Percent of the last 30 days of executions (all tenants) that succeeded; failures for invalid input are left out; 50 without executions',
      ),
      latency: component(
        { p95_ms: z.number().int().nullable(), source: z.enum(['executions', 'certification', 'none']) },
        'p95 latency of the successful executions of the last 30 days (else of the latest certification run): 100 at 250 ms or less, 0 at 5000 ms or more, linear between; 50 without data',
      ),
      feedback: component(
        { average: z.number().nullable(), count: z.number().int() },
        'Average community rating mapped from 1–5 to 0–100; 50 without ratings',
      ),
    }),
    computed_score: z.number().int().describe('The weighted sum of the components shown: `trust_score` as of `computed_at`'),
    computed_at: z
      .string()
      .nullable()
      .describe(
        'When the score was last recomputed (after a certification run, a rating, and daily); null when never: every component is then neutral',
      ),
    feedback: z.object({
      count: z.number().int(),
      average: z.number().nullable().describe('Average rating, 2 decimals; null without ratings'),
      distribution: z.object({ 1: z.number().int(), 2: z.number().int(), 3: z.number().int(), 4: z.number().int(), 5: z.number().int() }),
      your_rating: z.number().int().nullable().describe("The calling tenant's rating, if any"),
    }),
    history: z
      .array(
        z.object({
          score: z.number().int(),
          previous_score: z.number().int(),
          reason: z.enum(['certification', 'feedback', 'usage']),
          changed_at: z.string(),
        }),
      )
      .describe('Changes of the score, newest first'),
  })
  .meta({ id: 'Trust' });

export const feedbackInput = z.strictObject({
  name: moduleNameInPath,
  rating: z.number().int().min(1).max(5).describe('1 (worst) to 5 (best)'),
  comment: z.string().max(2000).optional().describe('Up to 2000 characters; rating again without one removes the previous comment'),
});

export const feedbackView = z
  .object({
    module: z.string(),
    rating: z.number().int(),
    comment: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    trust_score: z.number().int().describe("The module's score after this rating"),
  })
  .meta({ id: 'Feedback' });

export type TrustInput = z.infer<typeof trustInput>;
export type FeedbackInput = z.infer<typeof feedbackInput>;

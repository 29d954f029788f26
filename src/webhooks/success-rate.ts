import { inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { webhookStats } from '../db/schema';

/** succeeded ÷ finished, to four places, as the detail view's `stats.success_rate` has it. */
export const successRate = (succeeded: number, failed: number) =>
  succeeded + failed > 0 ? Math.round((succeeded / (succeeded + failed)) * 10_000) / 10_000 : null;

/** Each subscription's lifetime success rate, from the same counters as the detail view's stats. */
export async function successRates(db: Executor, subscriptionIds: string[]): Promise<Map<string, number | null>> {
  if (subscriptionIds.length === 0) return new Map();
  const st = webhookStats;
  const rows = await db
    .select({
      id: st.subscriptionId,
      succeeded: sql<number>`coalesce(sum(${st.deliveriesSucceeded}), 0)::float8`,
      failed: sql<number>`coalesce(sum(${st.deliveriesFailed}), 0)::float8`,
    })
    .from(st)
    .where(inArray(st.subscriptionId, subscriptionIds))
    .groupBy(st.subscriptionId);
  return new Map(rows.map((r) => [r.id, successRate(Number(r.succeeded), Number(r.failed))]));
}

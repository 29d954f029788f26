import { asc, eq } from 'drizzle-orm';
import { events, workflowEventInbox } from '../db/schema';
import type { Services } from '../services';
import { startTriggeredRuns } from './triggers';
import { resumeWaitingSteps } from './waits';

/**
 * Takes the events noted for listeners (src/outbox/events.ts notes them with the event, in its
 * statement, when a waiting step or an `on` trigger of the tenant takes their kind), oldest
 * first: resumes the waiting steps they match and starts the runs they trigger; each is removed
 * once handled. Handling one twice (two instances at once, a crash before the removal) is
 * harmless: a wait ends once, and a triggered run's idempotency key is the event's id. Returns
 * the tenant and kind of each event taken.
 */
export async function processEventInbox(svc: Services, limit = 100): Promise<{ tenantId: string; type: string }[]> {
  const noted = await svc.db
    .select({ eventId: workflowEventInbox.eventId, tenantId: workflowEventInbox.tenantId, type: workflowEventInbox.type, event: events })
    .from(workflowEventInbox)
    .leftJoin(events, eq(events.id, workflowEventInbox.eventId))
    .orderBy(asc(workflowEventInbox.createdAt))
    .limit(limit);
  for (const { eventId, event } of noted) {
    if (event) {
      await resumeWaitingSteps(svc, event);
      await startTriggeredRuns(svc, event);
    }
    await svc.db.delete(workflowEventInbox).where(eq(workflowEventInbox.eventId, eventId));
  }
  return noted.map(({ tenantId, type }) => ({ tenantId, type }));
}

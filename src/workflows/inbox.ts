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
 * harmless: a wait ends once, and a triggered run's idempotency key is the event's id.
 */
export async function processEventInbox(svc: Services, limit = 100): Promise<number> {
  const noted = await svc.db.select().from(workflowEventInbox).orderBy(asc(workflowEventInbox.createdAt)).limit(limit);
  for (const note of noted) {
    const [row] = await svc.db.select().from(events).where(eq(events.id, note.eventId));
    if (row) {
      const event = { id: row.id, tenantId: row.tenantId, type: row.type, data: row.data, createdAt: row.createdAt };
      await resumeWaitingSteps(svc, event);
      await startTriggeredRuns(svc, event);
    }
    await svc.db.delete(workflowEventInbox).where(eq(workflowEventInbox.eventId, note.eventId));
  }
  return noted.length;
}

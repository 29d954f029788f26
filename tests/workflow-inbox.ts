import { eq } from 'drizzle-orm';
import { workflowEventInbox } from '../src/db/schema';
import type { Services } from '../src/services';
import { until } from './child-service';

/**
 * Until every event of `tenantId` noted for a waiting step or an `on` trigger has been handled
 * (src/workflows/inbox.ts removes each after resuming the steps and starting the runs it should):
 * after it, an event that was to do nothing has had its chance to do something.
 */
export async function eventsHandled(svc: Services, tenantId: string): Promise<void> {
  await until(
    `the noted events of ${tenantId} handled`,
    async () => {
      const left = await svc.db
        .select({ id: workflowEventInbox.eventId })
        .from(workflowEventInbox)
        .where(eq(workflowEventInbox.tenantId, tenantId));
      return left.length === 0;
    },
    60_000,
    50,
  );
}

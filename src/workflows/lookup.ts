import { and, eq } from 'drizzle-orm';
import { workflowRuns } from '../db/schema';
import type { Services } from '../services';

/**
 * The workflow of the tenant's run `runId`, or undefined when the tenant has no such run (another
 * tenant's run is none). For transports that name a run by its id alone (A2A task ids), before
 * they call the run operations, which take the workflow id as REST's paths do.
 */
export async function findRunWorkflow(svc: Services, tenantId: string, runId: string): Promise<string | undefined> {
  const [row] = await svc.db
    .select({ workflowId: workflowRuns.workflowId })
    .from(workflowRuns)
    .where(and(eq(workflowRuns.id, runId), eq(workflowRuns.tenantId, tenantId)));
  return row?.workflowId;
}

import { Link } from '@/components/ui/link';
import { statusOf } from '@/client/trpc/client';
import { EmptyState } from '@/components/ui/empty-state';
import { QueryError } from '@/components/dashboard/query-error';

/** A workflow that could not be read: "not found" with a way back for a 404, the error with a retry otherwise. */
export function WorkflowLoadError({ workflowId, error, retry }: { workflowId: string; error: unknown; retry: () => void }) {
  if (statusOf(error) !== 404) return <QueryError error={error} retry={retry} />;
  return (
    <EmptyState
      title="Workflow not found"
      action={
        <Link className="underline" href="/dashboard/workflows">
          All workflows
        </Link>
      }
    >
      There is no workflow {workflowId} in your workspace.
    </EmptyState>
  );
}

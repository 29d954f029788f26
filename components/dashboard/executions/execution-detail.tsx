'use client';

import { useQuery } from '@tanstack/react-query';
import { Link } from '@/components/ui/link';
import { useTRPC } from '@/client/trpc/react';
import { statusOf } from '@/client/trpc/client';
import { Alert } from '@/components/ui/alert';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card';
import { Copyable } from '@/components/ui/copyable';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { formatBytes, formatDateTime, formatMs } from '@/components/dashboard/format';
import { QueryError } from '@/components/dashboard/query-error';
import { ExecutionStatusBadge } from './status-badge';

/** One execution: what ran, for whom, how long, its output or error (GET /api/v1/executions/{id}). */
export function ExecutionDetail({ executionId }: { executionId: string }) {
  const trpc = useTRPC();
  const execution = useQuery(trpc.executions.get.queryOptions({ execution_id: executionId }));

  const back = (
    <Link
      href="/dashboard/executions"
      className="text-sm font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
    >
      ← All executions
    </Link>
  );
  if (execution.isPending) {
    return (
      <div className="grid gap-6">
        {back}
        <PageHeader title="Execution" />
        <SkeletonRows rows={6} label="Loading the execution" />
      </div>
    );
  }
  if (execution.isError) {
    return (
      <div className="grid gap-6">
        {back}
        <PageHeader title="Execution" />
        {statusOf(execution.error) === 404 ? (
          <EmptyState title="Execution not found">
            No execution <code className="font-mono">{executionId}</code> belongs to your tenant ({execution.error.message}).
          </EmptyState>
        ) : (
          <QueryError error={execution.error} retry={() => void execution.refetch()} />
        )}
      </div>
    );
  }
  const e = execution.data;
  const output = e.output === null || e.output === undefined ? null : JSON.stringify(e.output, null, 2);
  return (
    <div className="grid gap-6">
      {back}
      <PageHeader
        title={`${e.module}.${e.action}`}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <ExecutionStatusBadge status={e.status} />
            <span className="font-mono text-xs break-all">{e.execution_id}</span>
          </span>
        }
      />
      <Card>
        <CardHeader>
          <CardTitle className="text-base">Details</CardTitle>
        </CardHeader>
        <CardContent>
          <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]" data-testid="execution-details">
            <dt className="text-slate-600 dark:text-slate-400">Module</dt>
            <dd>
              <Link
                className="font-mono text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
                href={`/dashboard/modules/${encodeURIComponent(e.module)}`}
              >
                {e.module}
              </Link>
            </dd>
            <dt className="text-slate-600 dark:text-slate-400">Action</dt>
            <dd className="font-mono">{e.action}</dd>
            <dt className="text-slate-600 dark:text-slate-400">Latency</dt>
            <dd className="tabular-nums">{formatMs(e.latency_ms)}</dd>
            <dt className="text-slate-600 dark:text-slate-400">Input size</dt>
            <dd className="tabular-nums">{formatBytes(e.input_bytes)}</dd>
            <dt className="text-slate-600 dark:text-slate-400">Output size</dt>
            <dd className="tabular-nums">{formatBytes(e.output_bytes)}</dd>
            <dt className="text-slate-600 dark:text-slate-400">Source</dt>
            <dd>{e.source}</dd>
            <dt className="text-slate-600 dark:text-slate-400">Request ID</dt>
            <dd className="font-mono text-xs break-all">{e.request_id}</dd>
            <dt className="text-slate-600 dark:text-slate-400">Started</dt>
            <dd>
              <time dateTime={e.created_at}>{formatDateTime(e.created_at)}</time>
            </dd>
            <dt className="text-slate-600 dark:text-slate-400">Finished</dt>
            <dd>{e.finished_at ? <time dateTime={e.finished_at}>{formatDateTime(e.finished_at)}</time> : 'Still running'}</dd>
          </dl>
        </CardContent>
      </Card>
      {e.error ? (
        <Alert variant="error" title={`Failed: ${e.error.code}`}>
          <p data-testid="execution-error">{e.error.message}</p>
        </Alert>
      ) : null}
      <Card>
        <CardHeader>
          <CardTitle className="text-base">Output</CardTitle>
        </CardHeader>
        <CardContent>
          {output === null ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">
              {e.status === 'running' ? 'No output yet: the execution is still running.' : 'This execution has no output.'}
            </p>
          ) : (
            <Copyable value={output} label="output" testId="execution-output" />
          )}
        </CardContent>
      </Card>
    </div>
  );
}

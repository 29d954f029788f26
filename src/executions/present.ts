import type { ExecutionRow } from '../db/schema';

/** An execution record (the detail view adds the full `output`). */
export function presentExecution(row: ExecutionRow) {
  return {
    execution_id: row.id,
    tenant_id: row.tenantId,
    module: row.module,
    action: row.action,
    status: row.status,
    latency_ms: row.latencyMs,
    request_id: row.requestId,
    source: row.source,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    input_bytes: row.inputBytes,
    output_bytes: row.outputBytes,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

export type ExecutionView = ReturnType<typeof presentExecution>;

/** 64 KB, the output limit of docs/decisions.md ("Wire conventions"). */
export const EVENT_PAYLOAD_CAP = 65_536;

/**
 * The data of `execution.completed` / `execution.failed`: the spec's seven fields plus `output`
 * (or `error`). When the webhook envelope would pass 64 KB, `output` becomes a summary with
 * `truncated: true` and `full_result_url` (the execution's path).
 */
export function executionEventData(row: ExecutionRow, output: unknown): Record<string, unknown> {
  const data: Record<string, unknown> = {
    execution_id: row.id,
    module: row.module,
    action: row.action,
    status: row.status,
    latency_ms: row.latencyMs ?? 0,
    request_id: row.requestId,
    tenant_id: row.tenantId,
  };
  if (row.status === 'failed') {
    data.error = { code: row.errorCode, message: row.errorMessage };
    return data;
  }
  const full = { ...data, output };
  // Envelope overhead (id, event, timestamp) is under 200 bytes.
  if (Buffer.byteLength(JSON.stringify(full)) + 200 <= EVENT_PAYLOAD_CAP) return full;
  const text = JSON.stringify(output);
  return {
    ...data,
    output: { summary: `${text.slice(0, 1024)}…`, bytes: Buffer.byteLength(text) },
    truncated: true,
    full_result_url: `/api/v1/executions/${row.id}`,
  };
}

/** An execution row as the group-committed flush statements (src/executions/records.ts) write it. */
import type { ExecutionRow } from '../db/schema';

/** An execution row's columns as the flush statements' JSON records name and type them, and its field of each. */
const COLUMNS = {
  id: ['text', 'id'],
  tenant_id: ['uuid', 'tenantId'],
  module: ['text', 'module'],
  action: ['text', 'action'],
  status: ['text', 'status'],
  request_id: ['text', 'requestId'],
  key_id: ['text', 'keyId'],
  input_bytes: ['int', 'inputBytes'],
  source: ['text', 'source'],
  output: ['jsonb', 'output'],
  output_bytes: ['int', 'outputBytes'],
  error_code: ['text', 'errorCode'],
  error_message: ['text', 'errorMessage'],
  latency_ms: ['int', 'latencyMs'],
  created_at: ['timestamptz', 'createdAt'],
  finished_at: ['timestamptz', 'finishedAt'],
} as const satisfies Record<string, readonly [string, keyof ExecutionRow]>;

export type Column = keyof typeof COLUMNS;
export const ALL = Object.keys(COLUMNS) as Column[];
/** A start writes these (the database sets `created_at`); a finish these over its `running` row (found by `id`). */
export const STARTED: Column[] = ['id', 'tenant_id', 'module', 'action', 'status', 'request_id', 'key_id', 'input_bytes', 'source'];
export const FINISHED: Column[] = [
  'id',
  'tenant_id',
  'status',
  'output',
  'output_bytes',
  'error_code',
  'error_message',
  'latency_ms',
  'finished_at',
];

export const columnTypes = (columns: Column[]) => columns.map((c) => `${c} ${COLUMNS[c][0]}`).join(', ');

export function insertWritten(columns: Column[], returning: string): string {
  return `written as (insert into executions (${columns.join(', ')}) select ${columns.map((c) => `v.${c}`).join(', ')} from v order by v.tenant_id returning ${returning})`;
}

/** The JSON record of `row` with `columns`. */
export function rowValues(row: ExecutionRow, columns: Column[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const c of columns) {
    const value = row[COLUMNS[c][1]];
    values[c] = value instanceof Date ? value.toISOString() : value;
  }
  return values;
}

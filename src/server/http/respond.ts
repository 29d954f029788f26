import type { ServerResponse } from 'node:http';
import { encodeJson } from '../../lib/checked-output';
import { AppError, errorBody } from '../errors';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = encodeJson(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': payload.length,
  });
  res.end(payload);
}

/** `body` as text, or bytes encoded once and kept (the discovery documents). */
export function sendText(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** What a procedure with `meta.file` returns (see src/server/trpc.ts). */
export interface FileOutput {
  filename: string;
  content_type: string;
  data_base64: string;
}

/**
 * A file answer: its bytes with its own Content-Type under its name; a PDF (an invoice) is shown
 * inline, anything else (a CSV export) is downloaded as an attachment.
 */
export function sendFile(res: ServerResponse, status: number, file: FileOutput, headers: Record<string, string> = {}): void {
  const body = Buffer.from(file.data_base64, 'base64');
  res.writeHead(status, {
    ...headers,
    'Content-Type': file.content_type,
    'Content-Length': body.length,
    'Content-Disposition': `${file.content_type === 'application/pdf' ? 'inline' : 'attachment'}; filename="${file.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
  });
  res.end(body);
}

/**
 * Writes an AppError in the API's error format (`{error, message, request_id, doc_url, ...}`), with
 * the headers it carries. `publicBaseUrl` (PUBLIC_BASE_URL) makes `doc_url` absolute; a caller that
 * does not pass it yet (the MCP handler's HTTP-level refusals) sends `/docs/errors#<code>`.
 */
export function sendError(
  res: ServerResponse,
  err: AppError,
  requestId: string,
  headers: Record<string, string>,
  publicBaseUrl: string,
): void {
  sendJson(res, err.status, errorBody(err, requestId, publicBaseUrl), { ...headers, ...err.headers });
}

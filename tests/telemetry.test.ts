/**
 * Traces (src/telemetry, docs/operations.md, Traces): a service started with
 * OTEL_EXPORTER_OTLP_ENDPOINT sends its spans to a local OTLP/HTTP receiver (JSON encoding):
 * each request's server span is named by its route template and carries the request id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, killChild, startChild, until, type Child } from './child-service';
import { ADMIN_TOKEN } from './harness';

interface Span {
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

let receiver: Server;
/** A webhook receiver: the headers of each request it got. */
let hooks: Server;
const hookHeaders: Record<string, string | string[] | undefined>[] = [];
let child: Child | undefined;
let dataDir: string;
const bodies: string[] = [];

/** Every span received so far (OTLP/JSON: resourceSpans -> scopeSpans -> spans). */
function spans(): Span[] {
  return bodies.flatMap((b) => {
    const doc = JSON.parse(b) as { resourceSpans?: { scopeSpans?: { spans?: Span[] }[] }[] };
    return (doc.resourceSpans ?? []).flatMap((r) => (r.scopeSpans ?? []).flatMap((s) => s.spans ?? []));
  });
}

const attribute = (span: Span, key: string) => span.attributes.find((a) => a.key === key)?.value.stringValue;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as { port: number };
  hooks = createServer((req, res) => {
    hookHeaders.push(req.headers);
    req.resume().on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  dataDir = mkdtempSync(path.join(tmpdir(), 'amp-telemetry-'));
  child = await startChild({
    DATA_DIR: dataDir,
    AMP_NO_NEXT: '1',
    LOG_LEVEL: 'warn',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    WEBHOOK_ALLOW_PRIVATE: '1',
    ADMIN_TOKEN,
  });
}, 120_000);

afterAll(async () => {
  await killChild(child, 'SIGTERM');
  await new Promise((resolve) => receiver?.close(resolve));
  await new Promise((resolve) => hooks?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

it('exports a server span per request, named by its route template, with the request id', async () => {
  const requestId = `req_telemetry${Date.now()}`;
  const res = await fetch(`${child!.url}/api/v1/modules/text`, { headers: { 'x-request-id': requestId } });
  expect(res.headers.get('x-request-id')).toBe(requestId);
  // A wait on the condition: on a loaded machine the child's exporter can take a while.
  const span = await until('the request span', async () => spans().find((s) => attribute(s, 'amp.request_id') === requestId), 80_000);
  expect(span.name).toBe('GET /api/v1/modules/{module}');
  expect(attribute(span, 'http.route')).toBe('/api/v1/modules/{module}');
  // SpanKind.SERVER is 2 in OTLP.
  expect(span.kind).toBe(2);
}, 90_000);

it('a webhook request carries the trace context as traceparent', async () => {
  const registered = await call(child!, '/api/v1/auth/register', { body: { agent_name: 'traced', owner_email: 'traced@example.com' } });
  expect(registered.status).toBe(201);
  const { api_key: key, tenant_id: tenantId } = registered.body as { api_key: string; tenant_id: string };
  expect((await call(child!, `/api/v1/admin/tenants/${tenantId}/plan`, { method: 'PUT', admin: true, body: { plan: 'pro' } })).status).toBe(
    200,
  );
  const { port } = hooks.address() as { port: number };
  const webhook = await call(child!, '/api/v1/webhooks', { key, body: { url: `http://127.0.0.1:${port}/hook`, events: ['*'] } });
  expect(webhook.status).toBe(201);
  expect((await call(child!, `/api/v1/webhooks/${webhook.body.id}/test`, { key, method: 'POST' })).status).toBeLessThan(300);
  const headers = await until('the webhook request', async () => hookHeaders[0], 30_000);
  expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
}, 60_000);

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
import { killChild, startChild, until, type Child } from './child-service';

interface Span {
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

let receiver: Server;
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
  dataDir = mkdtempSync(path.join(tmpdir(), 'amp-telemetry-'));
  child = await startChild({
    DATA_DIR: dataDir,
    AMP_NO_NEXT: '1',
    LOG_LEVEL: 'warn',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  });
}, 120_000);

afterAll(async () => {
  await killChild(child, 'SIGTERM');
  await new Promise((resolve) => receiver?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

it('exports a server span per request, named by its route template, with the request id', async () => {
  const requestId = `req_telemetry${Date.now()}`;
  const res = await fetch(`${child!.url}/api/v1/modules/text`, { headers: { 'x-request-id': requestId } });
  expect(res.headers.get('x-request-id')).toBe(requestId);
  const span = await until('the request span', async () => spans().find((s) => attribute(s, 'amp.request_id') === requestId), 30_000);
  expect(span.name).toBe('GET /api/v1/modules/{module}');
  expect(attribute(span, 'http.route')).toBe('/api/v1/modules/{module}');
  // SpanKind.SERVER is 2 in OTLP.
  expect(span.kind).toBe(2);
});

/**
 * OpenTelemetry traces over OTLP/HTTP (the exporter reads the standard OTEL_EXPORTER_OTLP_*
 * variables: endpoint, headers, protocol). Instrumented: incoming and outgoing HTTP (so webhook
 * attempts, which go through node:http, carry `traceparent`), PostgreSQL queries and Redis
 * commands. Server spans are named by the route template and carry the request id.
 */
import { createRequire, register } from 'node:module';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { tracing } from './hooks';

export async function startTracing(serviceName: string): Promise<void> {
  // ES modules loaded from here on are hooked too (pg and ioredis are imported, not required).
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  // node:http is already loaded (server.ts's static imports are), and an instrumentation patches a
  // module only when it sees it required: requiring it here patches Server.prototype, whatever
  // else happens to require it later.
  const require = createRequire(import.meta.url);
  require('http');
  require('https');
  tracing.annotate = (route, method, requestId) => {
    const span = trace.getActiveSpan();
    if (!span) return;
    span.setAttribute('amp.request_id', requestId);
    span.setAttribute('http.route', route);
    span.updateName(`${method ?? 'GET'} ${route}`);
  };
  const stop = () => void sdk.shutdown().catch(() => {});
  process.once('beforeExit', stop);
}

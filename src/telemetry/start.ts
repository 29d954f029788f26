/**
 * Imported first by server.ts: when OTEL_EXPORTER_OTLP_ENDPOINT is set, OpenTelemetry's SDK
 * starts here, before the modules it instruments are loaded (docs/operations.md, Traces). Unset,
 * no OpenTelemetry module is loaded at all.
 */
import { tracingConfig } from '../config';

const settings = tracingConfig();
if (settings) await (await import('./sdk')).startTracing(settings.serviceName);

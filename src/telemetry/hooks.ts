/**
 * What the request path tells the tracer, set only when tracing runs (src/telemetry/sdk.ts):
 * unset, the request path pays one property read and loads no OpenTelemetry code.
 */
export const tracing: {
  /** Names the request's server span by its route template and tags it with the request id. */
  annotate?: (route: string, method: string | undefined, requestId: string) => void;
} = {};

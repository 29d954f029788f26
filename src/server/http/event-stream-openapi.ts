/** The OpenAPI path item of GET /api/v1/events/stream (src/server/http/event-stream.ts), assembled by src/server/openapi.ts. */
import { EVENT_TYPES } from '../../contract/events';
import { API_SECURITY, errorResponse, INTERNAL, refusalDescription, type PathItems } from '../openapi-parts';
import { EVENT_STREAM_PATH, STREAM_REQUIRES, STREAMS_PER_TENANT } from './event-stream';

export function eventStreamPaths(): PathItems {
  return {
    [EVENT_STREAM_PATH]: {
      get: {
        operationId: 'events-stream',
        tags: ['webhooks'],
        summary: "Stream the tenant's events (Server-Sent Events)",
        description: `The tenant's events as they are recorded, as \`text/event-stream\`: per event \`id: <event id>\`, \`event: <kind>\`, \`data: <envelope JSON>\` (the envelope a push delivery POSTs), in the order polling returns them, each once. Resume after a disconnect with the \`Last-Event-ID\` header (EventSource clients send it themselves) or \`?after=\`; without either the stream starts now. A comment line (\`: heartbeat\`) every 15 seconds while idle. Needs scope \`*\` and the Pro plan or above, like the webhook endpoints; one request of the tenant's pool when it opens. At most ${STREAMS_PER_TENANT} streams of a tenant are open at once, across instances when they share Redis (429 \`concurrency_limit_exceeded\` beyond). When the instance shuts down the stream ends: reconnect with \`Last-Event-ID\`. Refusals before the stream starts are JSON in the error format.`,
        security: API_SECURITY,
        parameters: [
          {
            name: 'events',
            in: 'query',
            required: false,
            description: `Only these kinds, comma-separated (\`*\` or absent: all): ${EVENT_TYPES.join(', ')}`,
            schema: { type: 'string' },
          },
          {
            name: 'after',
            in: 'query',
            required: false,
            description:
              'Where to start: an event id (`evt_...`: the events after it), a `next_cursor` of GET /api/v1/webhooks/{id}/messages, or `now` (the default). `Last-Event-ID` wins when both are sent.',
            schema: { type: 'string' },
          },
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: 'The id of the last event received (resume after it); sent by EventSource clients when they reconnect',
            schema: { type: 'string' },
          },
        ],
        responses: {
          200: {
            description: 'The stream: `retry: 2000`, then one block per event and a comment line every 15 seconds while idle',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          400: errorResponse(
            '400',
            'Unknown query parameter or event kind, or `after`/`Last-Event-ID` names no position (`invalid_request`)',
          ),
          401: errorResponse('401', 'No valid credential (`unauthorized`)'),
          403: errorResponse('403', refusalDescription(STREAM_REQUIRES)!),
          405: errorResponse('405', 'Only GET (and OPTIONS) are accepted (`method_not_allowed`)'),
          429: errorResponse(
            '429',
            `The tenant's request limit (\`rate_limit_exceeded\`), or ${STREAMS_PER_TENANT} streams of the tenant already open (\`concurrency_limit_exceeded\`, \`Retry-After: 5\`)`,
          ),
          500: errorResponse('500', INTERNAL),
        },
      },
    },
  };
}

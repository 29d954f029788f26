import { z } from 'zod';
import { EVENT_EXAMPLES, TEST_EVENT_EXAMPLE } from './event-examples';
import { EVENT_DATA_SCHEMAS, EVENT_TYPES, TEST_EVENT_DATA_SCHEMA, TEST_EVENT_TYPE } from './events';
import { dropSafeIntegerBounds, openObjects } from './output-schema';

/** Every kind of envelope the service POSTs to receivers: the event kinds, then the test event. */
export const WEBHOOK_DATA_SCHEMAS: [string, z.ZodType][] = [
  ...EVENT_TYPES.map((kind): [string, z.ZodType] => [kind, EVENT_DATA_SCHEMAS[kind]]),
  [TEST_EVENT_TYPE, TEST_EVENT_DATA_SCHEMA],
];

/**
 * A data schema as JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1), converted the way
 * trpc-to-openapi converts the routers' output schemas: zod 4's own converter, output side,
 * without the `$schema` keyword (a component must not repeat it). The OpenAPI `webhooks` section
 * and the event catalog both call this, so the two never differ.
 */
export function eventDataJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
  dropSafeIntegerBounds(json);
  openObjects(json);
  return json;
}

export interface EventCatalogEntry {
  type: string;
  description: string;
  /** False for `webhook.test`: sent only by the test endpoint, never subscribed to. */
  subscribable: boolean;
  schema: Record<string, unknown>;
  example: Record<string, unknown>;
}

let catalog: EventCatalogEntry[] | undefined;

/** The event catalog (GET /api/v1/webhooks/event-types): every kind with its description, data schema and example. */
export function eventCatalog(): EventCatalogEntry[] {
  catalog ??= WEBHOOK_DATA_SCHEMAS.map(([type, schema]) => ({
    type,
    description: schema.description ?? type,
    subscribable: type !== TEST_EVENT_TYPE,
    schema: eventDataJsonSchema(schema),
    example: (type === TEST_EVENT_TYPE ? TEST_EVENT_EXAMPLE : EVENT_EXAMPLES[type as keyof typeof EVENT_EXAMPLES]) as Record<
      string,
      unknown
    >,
  }));
  return catalog;
}

import { z } from 'zod';
import { EVENT_EXAMPLES, TEST_EVENT_EXAMPLE } from './event-examples';
import { EVENT_DATA_SCHEMAS, EVENT_TYPES, TEST_EVENT_DATA_SCHEMA, TEST_EVENT_TYPE } from './events';

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
  return json;
}

/**
 * zod gives every `.int()` the bounds of a safe integer: no information for a reader. Removed, as
 * the OpenAPI document removes them everywhere (src/server/openapi.ts); real bounds stay.
 */
function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropSafeIntegerBounds);
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  for (const value of Object.values(schema)) dropSafeIntegerBounds(value);
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

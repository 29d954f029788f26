import { eventCatalog } from '../contract/event-catalog';

/**
 * GET /api/v1/webhooks/event-types: the event catalog, every kind with its description, the JSON
 * Schema of its `data` and an example, built from the zod schemas that the OpenAPI document's
 * `webhooks` section is built from (src/contract/event-catalog.ts). Nothing in it is secret.
 */
export function listEventTypes() {
  return { data: eventCatalog() };
}

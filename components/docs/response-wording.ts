/**
 * The document as the API reference shows it. The OpenAPI document declares its error responses
 * once (`components.responses`) and an operation that words one its own way refers to it with
 * that wording as the reference's `description`, which OpenAPI 3.1 makes override the shared
 * one's. Scalar shows the referenced response as it is, so the operation's words would be lost:
 * such references are replaced here by the shared response with the operation's description.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function withResponseWording<T>(doc: T): T {
  if (!isObject(doc) || !isObject(doc.paths)) return doc;
  const shared = isObject(doc.components) && isObject(doc.components.responses) ? doc.components.responses : {};
  const reword = (responses: unknown): unknown => {
    if (!isObject(responses)) return responses;
    return Object.fromEntries(
      Object.entries(responses).map(([code, response]) => {
        if (!isObject(response) || typeof response.$ref !== 'string' || typeof response.description !== 'string') return [code, response];
        const name = /^#\/components\/responses\/([^/]+)$/.exec(response.$ref)?.[1];
        const target = name === undefined ? undefined : shared[name];
        return [code, isObject(target) ? { ...target, description: response.description } : response];
      }),
    );
  };
  const paths = Object.fromEntries(
    Object.entries(doc.paths).map(([path, item]) => [
      path,
      isObject(item)
        ? Object.fromEntries(
            Object.entries(item).map(([method, op]) => [method, isObject(op) && 'responses' in op ? { ...op, responses: reword(op.responses) } : op]),
          )
        : item,
    ]),
  );
  return { ...doc, paths } as T;
}

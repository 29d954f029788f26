/**
 * Clients generated from the OpenAPI document get types named after the resources: the document
 * declares them as component schemas (`.meta({ id })` on the zod output schemas) and every
 * operation refers to them, so openapi-typescript (like hey-api or orval) emits
 * `components["schemas"]["Execution"]` rather than one anonymous type per operation. The error
 * body is `ApiError` (an `Error` type would shadow the global one), and the error responses most
 * operations share are declared once, which keeps the document small.
 */
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { withResponseWording } from '../../components/docs/response-wording';
import { buildAdminOpenApiDocument, buildOpenApiDocument } from '../../src/server/openapi';

type Json = Record<string, any>;

/**
 * Upper bound of the compact JSON text of the document, in bytes: 732 KB when every response was
 * inline, 342 KB with the shared schemas and responses, 392 KB once members, the audit log and
 * the tenant's export and deletion joined, 427 KB with the workflow step kinds, triggers, flow
 * control and the approval, replay and bulk endpoints, 408 KB once the parameters and success
 * responses several operations repeat and zod's timestamp patterns were declared once
 * (src/server/openapi-compact.ts), 358 KB once success responses stopped listing the pool headers
 * every response carries (declared once, in `components.headers`), 327 KB once the operator's
 * endpoints moved to their own document (52 KB). What remains is distinct: the descriptions and
 * summaries (about 120 KB), the schemas and request bodies, and a reference per error status of
 * each operation.
 */
const MAX_DOCUMENT_BYTES = 335_000;

const RESOURCES = [
  'Module',
  'Action',
  'Execution',
  'ExecutionResult',
  'ApiKey',
  'KeyPolicy',
  'Webhook',
  'Delivery',
  'Attempt',
  'MemoryEntry',
  'Workflow',
  'WorkflowRun',
  'Invoice',
  'Usage',
  'CertificationRun',
  'CertificationReport',
  'Trust',
  'Plan',
  'PlanChange',
  'WhoAmI',
  'ApiError',
];

/** The member names of the `name: { ... }` block that opens at `start` in generated TypeScript. */
function membersOf(text: string, start: number): string[] {
  const open = text.indexOf('{', start);
  const names: string[] = [];
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) break;
    else if (depth === 1 && /[\w"]/.test(c!) && /\n\s*$/.test(text.slice(Math.max(open, i - 40), i))) {
      const name = /^"?([\w-]+)"?\??:/.exec(text.slice(i))?.[1];
      if (name) names.push(name);
    }
  }
  return names;
}

/** The schema object of a response, with a reference to a shared response followed. */
function contentSchema(doc: Json, response: Json | undefined): Json | undefined {
  const resolved = typeof response?.$ref === 'string' ? doc.components.responses[response.$ref.split('/').pop()!] : response;
  return resolved?.content?.['application/json']?.schema;
}

describe('OpenAPI document: named component schemas for generated clients', () => {
  let doc: Json;
  let types: string;
  let schemaNames: string[];
  beforeAll(async () => {
    doc = buildOpenApiDocument('http://localhost:3000') as Json;
    // A copy: openapi-typescript must not see (or mutate) the document object shared with others.
    types = astToString(await openapiTS(structuredClone(doc) as unknown as OpenAPI3, { alphabetize: true, silent: true }));
    const components = types.indexOf('export interface components {');
    expect(components).toBeGreaterThan(-1);
    schemaNames = membersOf(types, types.indexOf('schemas:', components));
  }, 120_000);

  it('openapi-typescript emits a named type for each resource, ApiError among them, and none named Error', async () => {
    for (const name of RESOURCES) expect(schemaNames, name).toContain(name);
    // The operator API's document too (`/api/openapi-admin.json`).
    const admin = buildAdminOpenApiDocument('http://localhost:3000') as Json;
    const adminTypes = astToString(await openapiTS(structuredClone(admin) as unknown as OpenAPI3, { alphabetize: true, silent: true }));
    const adminNames = membersOf(adminTypes, adminTypes.indexOf('schemas:', adminTypes.indexOf('export interface components {')));
    for (const name of ['AdminTenant', 'AdminPlanChange', 'Invoice', 'ApiError']) expect(adminNames, name).toContain(name);
    expect(schemaNames).not.toContain('Error');
    expect(Object.keys(doc.components.schemas)).not.toContain('Error');
    expect(types).not.toContain('components["schemas"]["Error"]');
  });

  it('operations refer to the named schemas: execute answers ExecutionResult, lists keep their envelope around named items', () => {
    const execute = doc.paths['/api/v1/modules/{module}/execute'].post;
    expect(contentSchema(doc, execute.responses['200'])).toEqual({ $ref: '#/components/schemas/ExecutionResult' });
    expect(types).toMatch(/"modules-execute": \{[\s\S]*?200: \{[\s\S]*?"application\/json": components\["schemas"\]\["ExecutionResult"\]/);
    expect(contentSchema(doc, doc.paths['/api/v1/executions/{execution_id}'].get.responses['200'])).toEqual({
      $ref: '#/components/schemas/ExecutionDetail',
    });

    const lists: [string, string][] = [
      ['/api/v1/modules', 'Module'],
      ['/api/v1/executions', 'Execution'],
      ['/api/v1/keys', 'ApiKey'],
      ['/api/v1/memory', 'MemoryEntry'],
      ['/api/v1/workflows', 'Workflow'],
      ['/api/v1/billing/invoices', 'Invoice'],
    ];
    for (const [path, item] of lists) {
      const list = contentSchema(doc, doc.paths[path]?.get?.responses?.['200']);
      expect(list?.type, path).toBe('object');
      expect(list?.properties?.data?.items, path).toEqual({ $ref: `#/components/schemas/${item}` });
    }
    const single: [string, string, string][] = [
      ['/api/v1/modules/{module}', 'get', 'Module'],
      ['/api/v1/webhooks/{id}', 'put', 'Webhook'],
      ['/api/v1/billing/usage', 'get', 'Usage'],
      ['/api/v1/billing/invoices/{id}', 'get', 'Invoice'],
    ];
    for (const [path, method, name] of single) {
      expect(contentSchema(doc, doc.paths[path]?.[method]?.responses?.['200']), `${method} ${path}`).toEqual({
        $ref: `#/components/schemas/${name}`,
      });
    }
    const delivery = doc.components.schemas.Delivery;
    expect(delivery.properties.attempts.items).toEqual({ $ref: '#/components/schemas/Attempt' });
  });

  it('every error response is a reference to a shared response whose body is ApiError', () => {
    const shared = doc.components.responses as Json;
    for (const name of ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'PayloadTooLarge', 'TooManyRequests', 'InternalError'])
      expect(shared[name]?.content?.['application/json']?.schema, name).toEqual({ $ref: '#/components/schemas/ApiError' });
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      if (!path.startsWith('/api/v1/')) continue;
      for (const [method, op] of Object.entries(item as Json)) {
        for (const [code, response] of Object.entries((op as Json).responses ?? {})) {
          if (!/^[45]/.test(code) || (path.startsWith('/api/v1/health') && code === '503')) continue;
          expect((response as Json).$ref, `${method} ${path} ${code}`).toMatch(/^#\/components\/responses\/\w+$/);
        }
      }
    }
  });

  it("the API reference (/docs) shows an operation's own wording of a shared error response", () => {
    const execute = doc.paths['/api/v1/modules/{module}/execute'].post;
    const own = execute.responses['403'];
    expect(own).toEqual({ $ref: '#/components/responses/Forbidden', description: expect.stringContaining('modules:execute') });
    const shown = withResponseWording(doc).paths['/api/v1/modules/{module}/execute'].post.responses as Json;
    expect(shown['403']).toEqual({ ...doc.components.responses.Forbidden, description: own.description });
    // A reference without words of its own stays a reference; the document itself is not changed.
    expect(shown['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(execute.responses['403']).toBe(own);
  });

  it(`the document stays under ${MAX_DOCUMENT_BYTES / 1000} KB`, () => {
    expect(Buffer.byteLength(JSON.stringify(doc))).toBeLessThan(MAX_DOCUMENT_BYTES);
  });
});

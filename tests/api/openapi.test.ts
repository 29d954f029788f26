import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/record';
import { RouteTable } from '../../src/server/http/routes';
import { appRouter } from '../../src/server/router';
import { expectError, startTestServer, type TestServer } from '../harness';

type Json = Record<string, any>;

const ERROR_REF = '#/components/schemas/Error';
const routes = new RouteTable(appRouter).all();
const operationOf = (doc: Json, template: string, method: string): Json | undefined => doc.paths?.[template]?.[method.toLowerCase()];

describe('OpenAPI document (embedded)', () => {
  let s: TestServer;
  let doc: Json;
  let text: string;
  beforeAll(async () => {
    s = await startTestServer();
    const res = await fetch(`${s.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    text = await res.text();
    doc = JSON.parse(text);
  });
  afterAll(async () => s?.close());

  it('is served byte-for-byte the same at /api/openapi.json and /openapi.json, without credentials', async () => {
    const other = await fetch(`${s.url}/openapi.json`);
    expect(other.status).toBe(200);
    expect(other.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Buffer.from(await other.arrayBuffer()).equals(Buffer.from(text))).toBe(true);
    // Served twice: still the same bytes (cached, not rebuilt differently).
    expect(await (await fetch(`${s.url}/api/openapi.json`)).text()).toBe(text);
  });

  it('answers 405 to other methods', async () => {
    const res = await s.call('/api/openapi.json', { method: 'POST', body: {} });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('is OpenAPI 3.1.0 and passes swagger-parser validation', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info?.title).toEqual(expect.any(String));
    expect(doc.info?.version).toEqual(expect.any(String));
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('documents every route of the REST route table, and nothing else', () => {
    expect(routes.length).toBeGreaterThan(0);
    const missing = routes.filter((r) => !operationOf(doc, r.template, r.method)).map((r) => `${r.method} ${r.template}`);
    expect(missing).toEqual([]);
    const documented = Object.entries(doc.paths as Json).flatMap(([p, item]) =>
      Object.keys(item as Json)
        .filter((m) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(m))
        .map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${r.template}`).sort());
  });

  it('declares an x-api-key apiKey scheme and an http bearer scheme', () => {
    const schemes = Object.values((doc.components?.securitySchemes ?? {}) as Record<string, Json>);
    expect(schemes).toContainEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }));
    expect(schemes.some((x) => x.type === 'http' && String(x.scheme).toLowerCase() === 'bearer')).toBe(true);
  });

  it('protected operations list security (either scheme); register and health do not', () => {
    const schemes = (doc.components?.securitySchemes ?? {}) as Record<string, Json>;
    const apiKeyName = Object.keys(schemes).find((n) => schemes[n]!.type === 'apiKey');
    const bearerName = Object.keys(schemes).find((n) => schemes[n]!.type === 'http');
    // A top-level `security` would apply to the public operations too.
    expect(doc.security ?? []).toEqual([]);
    for (const r of routes) {
      const op = operationOf(doc, r.template, r.method)!;
      const where = `${r.method} ${r.template}`;
      if (r.meta.openapi?.protect === false) {
        expect(op.security ?? [], where).toEqual([]);
        continue;
      }
      expect(Array.isArray(op.security) && op.security.length > 0, where).toBe(true);
      for (const requirement of op.security as Json[]) {
        for (const name of Object.keys(requirement)) expect(schemes, `${where}: ${name}`).toHaveProperty(name);
      }
      // Alternatives, not both at once: each requirement object names one scheme.
      const alternatives = (op.security as Json[]).map((req) => Object.keys(req));
      expect(alternatives, where).toContainEqual([apiKeyName]);
      expect(alternatives, where).toContainEqual([bearerName]);
    }
    for (const [method, path] of [
      ['post', '/api/v1/auth/register'],
      ['get', '/api/v1/health'],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.security ?? [], `${method} ${path}`).toEqual([]);
    }
  });

  it('every operation documents error responses with the shared Error schema', () => {
    const error = doc.components?.schemas?.Error;
    expect(error).toBeDefined();
    expect(error.required).toEqual(expect.arrayContaining(['error', 'message', 'request_id']));
    expect(error.properties.error.enum).toEqual(expect.arrayContaining(['unauthorized', 'not_found', 'invalid_request', 'internal_error']));
    // trpc-to-openapi's own error shapes are replaced, never left dangling.
    expect(Object.keys(doc.components.schemas).filter((n) => n.startsWith('error.'))).toEqual([]);
    expect(text).not.toContain('#/components/schemas/error.');

    for (const r of routes) {
      const op = operationOf(doc, r.template, r.method)!;
      const where = `${r.method} ${r.template}`;
      const errorCodes = Object.keys(op.responses).filter((c) => /^[45]\d\d$/.test(c));
      expect(errorCodes.length, where).toBeGreaterThan(0);
      expect(errorCodes, where).toContain('500');
      for (const code of errorCodes) {
        expect(op.responses[code].content?.['application/json']?.schema?.$ref, `${where} ${code}`).toBe(ERROR_REF);
        expect(op.responses[code].headers, `${where} ${code}`).toHaveProperty('X-Request-Id');
      }
      if (r.meta.openapi?.protect !== false) {
        expect(errorCodes, where).toContain('401');
        if (!r.meta.rateLimitExempt) expect(errorCodes, where).toContain('429');
      }
      const declared = r.meta.openapi?.errorResponses as Record<string, string> | undefined;
      for (const [code, description] of Object.entries(declared ?? {})) {
        expect(op.responses[code]?.description, `${where} ${code}`).toBe(description);
      }
    }
  });

  it('success statuses follow the routes: register is 201, never 200', () => {
    const register = doc.paths['/api/v1/auth/register'].post;
    expect(Object.keys(register.responses)).toContain('201');
    expect(register.responses['200']).toBeUndefined();
    expect(register.responses['201'].content['application/json'].schema.required).toEqual(expect.arrayContaining(['api_key', 'tenant_id']));
    for (const r of routes) {
      const op = operationOf(doc, r.template, r.method)!;
      const success = Object.keys(op.responses).filter((c) => c.startsWith('2'));
      expect(success, `${r.method} ${r.template}`).toEqual([String(r.meta.successStatus ?? 200)]);
    }
  });

  describe('webhooks section', () => {
    /** Follows local `$ref`s (`#/...`), so assertions see the schema, however it is shared. */
    const resolve = (node: Json): Json => {
      let current = node;
      while (typeof current?.$ref === 'string') {
        expect(current.$ref, 'local reference').toMatch(/^#\//);
        current = current.$ref
          .slice(2)
          .split('/')
          .map((part: string) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
          .reduce((at: Json, part: string) => at?.[part], doc);
        expect(current, String(node.$ref)).toBeDefined();
      }
      return current;
    };
    /** Properties and required names of an object schema, merged over its `allOf` parts. */
    const flatten = (node: Json): { properties: Json; required: string[] } => {
      const schema = resolve(node);
      const parts = ((schema.allOf ?? []) as Json[]).map(flatten);
      return {
        properties: Object.assign({}, ...parts.map((p) => p.properties), schema.properties ?? {}),
        required: [...new Set([...parts.flatMap((p) => p.required), ...((schema.required ?? []) as string[])])],
      };
    };
    const envelopeOf = (kind: string) => flatten(doc.webhooks[kind].post.requestBody.content['application/json'].schema);
    const dataOf = (kind: string) => flatten(envelopeOf(kind).properties.data);

    it('lists exactly the 12 event kinds plus webhook.test', () => {
      expect(EVENT_TYPES).toHaveLength(12);
      expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...EVENT_TYPES, 'webhook.test'].sort());
    });

    it('each is a signed POST of the envelope {id, event, timestamp, data}', () => {
      for (const kind of Object.keys(doc.webhooks)) {
        const op = doc.webhooks[kind].post;
        expect(op, kind).toBeDefined();
        expect(op.summary ?? op.description, kind).toEqual(expect.any(String));
        expect(op.requestBody.content['application/json'].schema, kind).toBeDefined();
        const envelope = envelopeOf(kind);
        expect(envelope.required, kind).toEqual(expect.arrayContaining(['id', 'event', 'timestamp', 'data']));
        expect(resolve(envelope.properties.id).type, kind).toBe('string');
        expect(resolve(envelope.properties.event).const, kind).toBe(kind);
        expect(resolve(envelope.properties.timestamp), kind).toMatchObject({ type: 'string', format: 'date-time' });
        expect(resolve(envelope.properties.data).type, kind).toBe('object');
        const headers = (op.parameters as Json[]).map(resolve).filter((p) => p.in === 'header');
        expect(headers.map((h) => h.name.toLowerCase()).sort(), kind).toEqual(
          expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'x-webhook-id', 'x-webhook-signature']),
        );
        expect(Object.keys(op.responses), kind).toContain('2XX');
      }
    });

    it('execution.completed data carries the spec fields', () => {
      const data = dataOf('execution.completed');
      const fields = ['execution_id', 'module', 'action', 'status', 'latency_ms', 'request_id', 'tenant_id'];
      expect(Object.keys(data.properties)).toEqual(expect.arrayContaining(fields));
      expect(data.required).toEqual(expect.arrayContaining(fields));
      expect(data.properties.latency_ms.type).toBe('integer');
      expect(data.properties.status.const ?? data.properties.status.enum?.[0]).toBe('success');
    });

    it('certification.completed data carries the spec fields', () => {
      const data = dataOf('certification.completed');
      const fields = ['module', 'tier', 'previous_tier', 'trust_score', 'checks_passed', 'checks_total', 'report_url'];
      expect(Object.keys(data.properties)).toEqual(expect.arrayContaining(fields));
      expect(data.required).toEqual(expect.arrayContaining(fields));
      for (const field of ['trust_score', 'checks_passed', 'checks_total']) expect(data.properties[field].type, field).toBe('integer');
    });

    it('the document with webhooks still validates', async () => {
      expect(doc.webhooks).toBeDefined();
      await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    });
  });
});

import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});

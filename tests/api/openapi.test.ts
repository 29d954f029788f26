import SwaggerParser from '@apidevtools/swagger-parser';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/contract/events';
import { definitionChecker } from '../../components/dashboard/workflows/definition';
import { definitionSchema } from '../../src/server/http/definition-schema';
import { RouteTable } from '../../src/server/http/routes';
import { buildOpenApiDocument } from '../../src/server/openapi';
import { componentsReachedFrom } from '../../src/server/openapi-compact';
import { appRouter } from '../../src/server/router';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

type Json = Record<string, any>;

const ERROR_REF = '#/components/schemas/ApiError';
const allRoutes = new RouteTable(appRouter).all();
/** The operator's routes, described by their own document (`/api/openapi-admin.json`). */
const isOperatorRoute = (r: { meta: { caller?: string } }) => r.meta.caller === 'operator';
const routes = allRoutes.filter((r) => !isOperatorRoute(r));
const operatorRoutes = allRoutes.filter(isOperatorRoute);
/** Operations the handler serves itself (not procedures), added by the generator's post-processor. */
const HANDLER_OPERATIONS = [
  'POST /api/mcp',
  'GET /api/mcp',
  'DELETE /api/mcp',
  'POST /api/a2a',
  'GET /api/llms.txt',
  'GET /api/openapi.json',
  'GET /openapi.json',
  'GET /api/openapi-auth.json',
  'GET /api/openapi-admin.json',
  'GET /api/schemas/workflow-definition.json',
  'GET /.well-known/agent.json',
  'GET /.well-known/agent-card.json',
  'GET /api/v1/events/stream',
];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
/** Every operation of the document, `METHOD /path` with the operation object. */
const allOperations = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([p, item]) =>
    Object.entries(item as Json)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => ({ where: `${m.toUpperCase()} ${p}`, op: op as Json })),
  );
/** The pool headers every API response carries and every error response declares (docs/decisions.md, Headers and pools). */
const POOL_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'X-Execution-Remaining',
];
const operationOf = (doc: Json, template: string, method: string): Json | undefined => doc.paths?.[template]?.[method.toLowerCase()];
/**
 * A response as a reader sees it: a reference to a shared one (`components.responses`) resolved,
 * its own `description` (OpenAPI 3.1: a reference's description overrides the referenced one's) kept.
 */
const responseOf = (doc: Json, response: Json | undefined): Json | undefined => {
  if (typeof response?.$ref !== 'string') return response;
  const name = /^#\/components\/responses\/([^/]+)$/.exec(response.$ref)?.[1];
  const shared = name ? doc.components?.responses?.[name] : undefined;
  expect(shared, response.$ref).toBeDefined();
  const { $ref: _ref, ...own } = response;
  return { ...shared, ...own };
};

backends.describe('OpenAPI document (%s)', (backend) => {
  let s: TestServer;
  let doc: Json;
  let text: string;
  /** The operator API's document. */
  let adminDoc: Json;
  /** The document that describes `template`. */
  const docOf = (template: string) => (template.startsWith('/api/v1/admin/') ? adminDoc : doc);
  beforeAll(async () => {
    s = await startTestServer({ backend });
    const res = await fetch(`${s.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    text = await res.text();
    doc = JSON.parse(text);
    adminDoc = await (await fetch(`${s.url}/api/openapi-admin.json`)).json();
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

  it('is served compressed when the client accepts it, with an ETag per encoding; a current copy gets a 304 without the body', async () => {
    const get = (headers: Record<string, string>, method = 'GET') =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = httpRequest(`${s.url}/api/openapi.json`, { method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end();
      });
    const plain = await get({});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(text);
    const br = await get({ 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(text);
    expect(br.body.length).toBeLessThan(text.length / 5);
    const gz = await get({ 'accept-encoding': 'br;q=0, gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(text);
    expect((await get({ 'accept-encoding': 'gzip;q=0, br;q=0' })).headers['content-encoding']).toBeUndefined();
    for (const res of [plain, br, gz]) {
      expect(res.status).toBe(200);
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
    }
    expect(new Set([plain, br, gz].map((r) => r.headers.etag)).size).toBe(3);

    const current = await get({ 'accept-encoding': 'br', 'if-none-match': br.headers.etag! });
    expect(current.status).toBe(304);
    expect(current.body.length).toBe(0);
    expect(current.headers.etag).toBe(br.headers.etag);
    expect(current.headers['x-ratelimit-limit']).toBeDefined();
    // A list, a weak tag (W/) and `*` match as RFC 9110 says.
    expect((await get({ 'accept-encoding': 'br', 'if-none-match': `"other", W/${br.headers.etag!}` })).status).toBe(304);
    expect((await get({ 'if-none-match': '*' })).status).toBe(304);
    // Another encoding's tag is another representation: the whole body.
    expect((await get({ 'accept-encoding': 'gzip', 'if-none-match': br.headers.etag! })).status).toBe(200);
    expect((await get({ 'if-none-match': '"something-else"' })).status).toBe(200);
    const head = await get({ 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(gz.headers['content-length']);
    expect(head.headers.etag).toBe(gz.headers.etag);
  });

  it('answers leave their objects open (members may be added: docs/versioning.md); request bodies stay closed', () => {
    const answers: unknown[] = [doc.components.responses, adminDoc.components.responses];
    const bodies: Json[] = [];
    for (const { op } of [...allOperations(doc), ...allOperations(adminDoc)]) {
      answers.push(op.responses);
      if (op.requestBody) bodies.push(op.requestBody);
    }
    expect(JSON.stringify(answers)).not.toContain('"additionalProperties":false');
    for (const name of ['Module', 'Execution', 'ApiKey', 'Webhook', 'WorkflowRun', 'Invoice', 'Usage', 'ExecutionCompletedData'])
      expect(JSON.stringify(doc.components.schemas[name]), name).not.toContain('"additionalProperties":false');
    // Every component an answer reaches, shared ones included: a workflow's flow controls as
    // answered are components of their own (`WorkflowConcurrency`), open, beside the closed ones
    // a definition sends (`WorkflowConcurrencyInput`).
    const apiAnswers = [doc.components.responses, ...allOperations(doc).map(({ op }) => op.responses)];
    for (const key of componentsReachedFrom(doc, apiAnswers))
      expect(JSON.stringify(doc.components[key.split('/')[0]!][key.split('/')[1]!]), key).not.toContain('"additionalProperties":false');
    expect(doc.components.schemas.WorkflowConcurrencyInput.additionalProperties).toBe(false);
    // What the API accepts: an unknown member is refused (400), as the schema says.
    const createKey = operationOf(doc, '/api/v1/keys', 'post')!.requestBody.content['application/json'].schema;
    expect(createKey.additionalProperties).toBe(false);
    expect(doc.components.schemas.WorkflowStepInput.oneOf[0].additionalProperties).toBe(false);
    expect(bodies.length).toBeGreaterThan(30);
  });

  it('answers 405 to other methods', async () => {
    const res = await s.call('/api/openapi.json', { method: 'POST', body: {} });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toContain('GET');
  });

  it("serves a workflow definition's JSON Schema: the document's, self-contained, checking what the API checks", async () => {
    const res = await fetch(`${s.url}/api/schemas/workflow-definition.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/schema\+json/);
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    const schema = await res.json();
    const url = `${s.svc.config.publicBaseUrl}/api/schemas/workflow-definition.json`;
    expect(schema).toEqual(definitionSchema(doc, url));
    expect(schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: url, title: 'Workflow definition' });
    expect(JSON.stringify(schema)).not.toContain('#/components/');
    const check = definitionChecker(schema);
    const step = { id: 'a', module: 'text', action: 'slugify', input: { text: 'x' } };
    expect(check({ name: 'ok', steps: [step] })).toEqual([]);
    expect(check({ name: 'no steps' }).map((p) => p.path)).toContain('steps');
    expectError(await s.call('/api/schemas/workflow-definition.json', { method: 'POST', body: {} }), 405, 'method_not_allowed');
  });

  it('is OpenAPI 3.1.0 and passes swagger-parser validation', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info?.title).toEqual(expect.any(String));
    expect(doc.info?.version).toEqual(expect.any(String));
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('documents every route of the REST route table and the endpoints the handler serves itself, and nothing else', () => {
    expect(routes.length).toBeGreaterThan(0);
    const missing = routes.filter((r) => !operationOf(doc, r.template, r.method)).map((r) => `${r.method} ${r.template}`);
    expect(missing).toEqual([]);
    const documented = allOperations(doc).map((o) => o.where);
    expect(documented.sort()).toEqual([...routes.map((r) => `${r.method} ${r.template}`), ...HANDLER_OPERATIONS].sort());
    // The operator's routes, and only they, in the operator API's document.
    expect(operatorRoutes.length).toBeGreaterThan(0);
    expect(
      allOperations(adminDoc)
        .map((o) => o.where)
        .sort(),
    ).toEqual(operatorRoutes.map((r) => `${r.method} ${r.template}`).sort());
  });

  it("the operator API's document: served like this one, valid, linked both ways, every operation on the operator token", async () => {
    const res = await fetch(`${s.url}/api/openapi-admin.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    const again = await fetch(`${s.url}/api/openapi-admin.json`);
    expect(await again.text()).toBe(JSON.stringify(adminDoc));
    expectError(await s.call('/api/openapi-admin.json', { method: 'POST', body: {} }), 405, 'method_not_allowed');
    await expect(SwaggerParser.validate(structuredClone(adminDoc) as never)).resolves.toBeTruthy();
    expect(adminDoc.openapi).toBe('3.1.0');
    expect(adminDoc.info.version).toBe(doc.info.version);
    expect(adminDoc.externalDocs.url).toBe(`${s.svc.config.publicBaseUrl}/api/openapi.json`);
    expect(doc.info.description).toContain('/api/openapi-admin.json');
    expect(Object.keys(adminDoc.components.securitySchemes)).toEqual(['adminToken']);
    expect(doc.components.securitySchemes).not.toHaveProperty('adminToken');
    for (const { where, op } of allOperations(adminDoc)) expect(op.security, where).toEqual([{ adminToken: [] }]);
    // Each document holds the components its operations use, and no other.
    expect(Object.keys(adminDoc.components.schemas)).toEqual(expect.arrayContaining(['AdminTenant', 'ApiError']));
    expect(doc.components.schemas).not.toHaveProperty('AdminTenant');
    expect(doc.components.responses).not.toHaveProperty('AdminUnauthorized');
    expect(adminDoc.components.schemas).not.toHaveProperty('Module');
    expect(adminDoc.tags.map((t: Json) => t.name)).toEqual(['admin']);
    expect(doc.tags.map((t: Json) => t.name)).not.toContain('admin');
  });

  it('declares an x-api-key apiKey scheme and an http bearer scheme', () => {
    const schemes = Object.values((doc.components?.securitySchemes ?? {}) as Record<string, Json>);
    expect(schemes).toContainEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }));
    expect(schemes.some((x) => x.type === 'http' && String(x.scheme).toLowerCase() === 'bearer')).toBe(true);
  });

  it('protected operations list security (either scheme); admin ones the adminToken scheme; register and health none', () => {
    const schemes = (doc.components?.securitySchemes ?? {}) as Record<string, Json>;
    const apiKeyName = Object.keys(schemes).find((n) => schemes[n]!.type === 'apiKey');
    const bearerName = Object.keys(schemes).find((n) => schemes[n]!.type === 'http');
    // A top-level `security` would apply to the public operations too.
    expect(doc.security ?? []).toEqual([]);
    for (const r of routes) {
      const op = operationOf(doc, r.template, r.method)!;
      const where = `${r.method} ${r.template}`;
      if (r.meta.bearerOnly) {
        // Outside the tenant check, but not public: the signed-in user's bearer token only (link, accept an invitation, delete the account).
        expect(op.security, where).toEqual([{ [bearerName!]: [] }]);
        continue;
      }
      if (r.meta.openapi?.protect === false) {
        expect(op.security, where).toEqual([]);
        continue;
      }
      expect(Array.isArray(op.security) && op.security.length > 0, where).toBe(true);
      for (const requirement of op.security as Json[]) {
        for (const name of Object.keys(requirement)) expect(schemes, `${where}: ${name}`).toHaveProperty(name);
      }
      // Alternatives, not both at once: each requirement object names one scheme.
      const alternatives = (op.security as Json[]).map((req) => Object.keys(req));
      // Exactly the tenant's credentials: the operator token opens no tenant operation.
      expect(alternatives, where).toEqual([[apiKeyName], [bearerName]]);
    }
    for (const [method, path] of [
      ['post', '/api/v1/auth/register'],
      ['get', '/api/v1/health'],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.security, `${method} ${path}`).toEqual([]);
    }
    for (const r of operatorRoutes) expect(operationOf(adminDoc, r.template, r.method)!.security, r.template).toEqual([{ adminToken: [] }]);
    expect(adminDoc.components.securitySchemes.adminToken).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-admin-token' }),
    );
  });

  it('every operation declares security, webhooks included: [] for public ones', () => {
    for (const { where, op } of allOperations(doc)) expect(Array.isArray(op.security), where).toBe(true);
    for (const [kind, item] of Object.entries(doc.webhooks as Json)) expect((item as Json).post.security, kind).toEqual([]);
    const publicOnes = [
      'GET /api/mcp',
      'DELETE /api/mcp',
      'GET /api/llms.txt',
      'GET /api/openapi.json',
      'GET /openapi.json',
      'GET /api/openapi-auth.json',
      'GET /api/openapi-admin.json',
      'GET /.well-known/agent.json',
      'GET /.well-known/agent-card.json',
    ];
    for (const { where, op } of allOperations(doc).filter((o) => publicOnes.includes(o.where))) expect(op.security, where).toEqual([]);
    for (const { where, op } of allOperations(doc).filter((o) => ['POST /api/mcp', 'POST /api/a2a'].includes(o.where))) {
      expect(
        op.security.map((req: Json) => Object.keys(req)),
        where,
      ).toEqual([['ApiKeyAuth'], ['BearerAuth']]);
    }
  });

  it('every error response declares the pool headers by reference (429 adds Retry-After, 405 Allow); a success response only its own', () => {
    const headers = doc.components?.headers ?? {};
    for (const name of [...POOL_HEADERS, 'Retry-After', 'Allow']) expect(headers, name).toHaveProperty(name);
    expect(headers['X-Request-Id'].required).toBe(true);
    expect(headers['X-Execution-Remaining'].description).toMatch(/valid credential/);
    expect(headers['X-Execution-Remaining'].schema.oneOf).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'integer' }), expect.objectContaining({ const: 'unlimited' })]),
    );
    // Said once for every response, success included, where a reader of the document starts.
    for (const name of ['X-Request-Id', 'X-Execution-Remaining', 'components.headers']) expect(doc.info.description).toContain(name);
    let count405 = 0;
    let successes = 0;
    for (const { where, op, of } of [doc, adminDoc].flatMap((d) => allOperations(d).map((o) => ({ ...o, of: d })))) {
      for (const [code, response] of Object.entries(op.responses as Json)) {
        const declared = responseOf(of, response as Json)!.headers ?? {};
        if (Number(code) < 400) {
          successes++;
          for (const name of POOL_HEADERS) expect(declared, `${where} ${code}`).not.toHaveProperty(name);
          continue;
        }
        for (const name of POOL_HEADERS)
          expect(declared[name], `${where} ${code} ${name}`).toEqual({ $ref: `#/components/headers/${name}` });
        if (code === '429') expect(declared['Retry-After'], `${where} 429`).toEqual({ $ref: '#/components/headers/Retry-After' });
        if (code === '405') {
          count405++;
          expect(declared.Allow, `${where} 405`).toEqual({ $ref: '#/components/headers/Allow' });
        }
      }
    }
    expect(count405).toBeGreaterThan(0);
    expect(successes).toBeGreaterThan(100);
  });

  it('tags are declared with descriptions, and every operation has one, a summary and a description', () => {
    const tags = new Map((doc.tags as Json[]).map((t) => [t.name, t.description]));
    for (const [name, description] of tags) expect(description, name).toEqual(expect.any(String));
    for (const { where, op } of allOperations(doc)) {
      expect(op.tags?.length, where).toBeGreaterThan(0);
      for (const tag of op.tags) expect(tags.has(tag), `${where}: tag ${tag}`).toBe(true);
      expect(op.summary, where).toEqual(expect.any(String));
      expect(op.description, where).toEqual(expect.any(String));
    }
    expect(doc.info.license).toEqual(expect.objectContaining({ name: expect.any(String) }));
    expect(doc.info.contact).toEqual(expect.any(Object));
  });

  it('servers is the PUBLIC_BASE_URL, never a hard-coded host', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: s.svc.config.publicBaseUrl })]);
    expect(buildOpenApiDocument('https://api.example.org').servers).toEqual([expect.objectContaining({ url: 'https://api.example.org' })]);
  });

  it('documents the JSON-RPC endpoints and the discovery documents', () => {
    const mcp = doc.paths['/api/mcp'];
    expect(mcp.post.parameters).toContainEqual(expect.objectContaining({ name: 'modules', in: 'query' }));
    expect(Object.keys(mcp.post.responses)).toEqual(expect.arrayContaining(['200', '202', '400', '401', '413', '429', '500']));
    expect(mcp.post.description).toContain('concurrency_limit_exceeded');
    for (const method of ['get', 'delete']) expect(Object.keys(mcp[method].responses), method).toContain('405');
    const a2a = doc.paths['/api/a2a'].post;
    expect(a2a.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/JsonRpcRequest' });
    expect(Object.keys(a2a.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '429', '500']));
    expect(doc.paths['/api/llms.txt'].get.responses['200'].content).toHaveProperty('text/plain');
    expect(doc.paths['/api/schemas/workflow-definition.json'].get.responses['200'].content).toHaveProperty('application/schema+json');
    for (const p of [
      '/api/openapi.json',
      '/openapi.json',
      '/api/openapi-auth.json',
      '/api/openapi-admin.json',
      '/.well-known/agent.json',
      '/.well-known/agent-card.json',
    ]) {
      expect(doc.paths[p].get.responses['200'].content, p).toHaveProperty('application/json');
    }
  });

  it('real responses match the document: each status is documented, each pool header declared on it or once for all', async () => {
    const t = await s.register();
    const family = /^(x-request-id|x-ratelimit-.*|ratelimit|ratelimit-policy|x-execution-remaining|retry-after|allow)$/i;
    const declaredName = (declared: Json, name: string) => Object.keys(declared).find((d) => d.toLowerCase() === name);
    const check = (method: string, template: string, res: { status: number; headers: Headers }, credential: boolean) => {
      const where = `${method} ${template} -> ${res.status}`;
      const described = docOf(template);
      const response = responseOf(described, operationOf(described, template, method)?.responses?.[String(res.status)]);
      expect(response, `${where} is documented`).toBeDefined();
      for (const [name] of res.headers) {
        if (!family.test(name)) continue;
        // A success response declares only its own headers; the pool's are declared once for all.
        const pool = res.status < 400 && POOL_HEADERS.some((h) => h.toLowerCase() === name);
        if (pool) expect(declaredName(described.components.headers, name), `${where}: ${name} in components.headers`).toBeDefined();
        else expect(declaredName(response?.headers ?? {}, name), `${where}: ${name}`).toBeDefined();
      }
      expect(res.headers.get('x-ratelimit-limit'), where).not.toBeNull();
      expect(res.headers.has('x-execution-remaining'), `${where}: X-Execution-Remaining iff a valid credential`).toBe(credential);
    };
    check('GET', '/api/v1/me', await s.call('/api/v1/me', { key: t.apiKey }), true);
    check('GET', '/api/v1/me', await s.call('/api/v1/me'), false);
    check('GET', '/api/v1/me', await s.call('/api/v1/me', { key: 'amp_notavalidkeyatall0123456789abcdef' }), false);
    check('GET', '/api/v1/health', await s.call('/api/v1/health', { key: t.apiKey }), true);
    check('GET', '/api/v1/health', await s.call('/api/v1/health'), false);
    check(
      'POST',
      '/api/v1/modules/{module}/install',
      await s.call('/api/v1/modules/text/install', { key: t.apiKey, method: 'POST' }),
      true,
    );
    check(
      'POST',
      '/api/v1/modules/{module}/install',
      await s.call('/api/v1/modules/text/install', { key: t.apiKey, method: 'POST' }),
      true,
    );
    check('GET', '/api/v1/modules/{module}', await s.call('/api/v1/modules/no-such-module-here', { key: t.apiKey }), true);
    const entry = { agent_id: 'doc-check', key: 'k', value: 1 };
    check('POST', '/api/v1/memory', await s.call('/api/v1/memory', { key: t.apiKey, body: entry }), true);
    check('POST', '/api/v1/memory', await s.call('/api/v1/memory', { key: t.apiKey, body: entry }), true);
    check('GET', '/api/v1/keys', await s.call('/api/v1/keys?nope=1', { key: t.apiKey }), true);
    check('GET', '/api/v1/admin/tenants', await s.call('/api/v1/admin/tenants'), false);
    check('GET', '/api/mcp', await s.call('/api/mcp'), false);
    check('GET', '/api/openapi.json', await s.call('/api/openapi.json'), false);
    const etag = (await fetch(`${s.url}/api/openapi.json`)).headers.get('etag')!;
    const unchanged = await fetch(`${s.url}/api/openapi.json`, { headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    check('GET', '/api/openapi.json', unchanged, false);
    check('GET', '/api/openapi-auth.json', await s.call('/api/openapi-auth.json'), false);
    check('GET', '/api/llms.txt', await s.call('/api/llms.txt', { key: t.apiKey }), true);
    check('GET', '/.well-known/agent-card.json', await s.call('/.well-known/agent-card.json'), false);
  });

  it('documents concurrency_limit_exceeded on execute, batch and chain', () => {
    const execute = doc.paths['/api/v1/modules/{module}/execute'].post;
    expect(responseOf(doc, execute.responses['429'])!.description).toMatch(/concurrency_limit_exceeded.*saturated/s);
    for (const p of ['/api/v1/batch', '/api/v1/chain'])
      expect(doc.paths[p].post.description, p).toMatch(/concurrency_limit_exceeded.*saturated/s);
  });

  it('every operation documents error responses with the shared ApiError schema', () => {
    // Named ApiError, not Error: a generated client's `Error` type would shadow the global one.
    expect(doc.components?.schemas).not.toHaveProperty('Error');
    const error = doc.components?.schemas?.ApiError;
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
        // Health's and readiness's 503 are their documents (`down`, `not_ready`), like their 200s.
        if ((where === 'GET /api/v1/health' || where === 'GET /api/v1/health/ready') && code === '503') continue;
        const response = responseOf(doc, op.responses[code])!;
        expect(response.content?.['application/json']?.schema?.$ref, `${where} ${code}`).toBe(ERROR_REF);
        expect(response.headers, `${where} ${code}`).toHaveProperty('X-Request-Id');
      }
      if (r.meta.openapi?.protect !== false) {
        expect(errorCodes, where).toContain('401');
        if (!r.meta.rateLimitExempt) expect(errorCodes, where).toContain('429');
      }
      const declared = r.meta.openapi?.errorResponses as Record<string, string> | undefined;
      for (const [code, description] of Object.entries(declared ?? {})) {
        // A 403's own reasons follow what the operation requires (its scope, its plan).
        const stated = responseOf(doc, op.responses[code])?.description as string;
        if (code === '403' && r.meta.requires?.scope)
          expect(stated.toLowerCase().endsWith(`; ${description.toLowerCase()}`), `${where} ${code}: ${stated}`).toBe(true);
        else expect(stated, `${where} ${code}`).toBe(description);
      }
    }
  });

  it("each tenant operation's 403 names the scope and plan admission checks, and a key without that scope gets that `required_scope`", async () => {
    const owner = await s.register();
    await s.setPlan(owner.tenantId, 'pro', null);
    const keyHolding = async (scope: string) =>
      (await s.call('/api/v1/keys', { key: owner.apiKey, body: { name: `only ${scope}`, scopes: [scope] } })).body.api_key as string;
    const readKey = await keyHolding('modules:read');
    const memoryKey = await keyHolding('memory:read');
    const free = await s.register();
    const requiring = new RouteTable(appRouter).all().filter((route) => route.meta.requires?.scope || route.meta.requires?.feature);
    expect(requiring.length).toBeGreaterThan(60);
    for (const route of requiring) {
      const { scope, feature, roleScope } = route.meta.requires!;
      const where = `${route.method} ${route.template}`;
      const refused = responseOf(doc, operationOf(doc, route.template, route.method)?.responses?.['403'])?.description as string;
      if (scope) expect(refused, where).toContain(`The credential lacks the scope \`${scope}\``);
      if (roleScope && roleScope !== scope) expect(refused, where).toContain(`(a member's role: \`${roleScope}\`)`);
      if (feature) expect(refused, where).toMatch(/the plan must be `pro` or above for .+ \(`plan_required`\)/);
      const path = route.template.replace(/\{[^}]+\}/g, 'x');
      const method = route.method.toUpperCase();
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      if (scope) {
        const key = scope === 'modules:read' ? memoryKey : readKey;
        const res = await s.call(path, { key, method, body });
        expect(res.status, where).toBe(403);
        expect(res.body, where).toMatchObject({ error: 'insufficient_scope', required_scope: scope });
      }
      if (feature) {
        const res = await s.call(path, { key: free.apiKey, method, body });
        expect(res.status, where).toBe(403);
        expect(res.body, where).toMatchObject({ error: 'plan_required', required_plan: 'pro' });
      }
    }
  });

  it('success statuses follow the routes: register is 201, never 200; install and memory upsert answer both', () => {
    const register = doc.paths['/api/v1/auth/register'].post;
    expect(Object.keys(register.responses)).toContain('201');
    expect(register.responses['200']).toBeUndefined();
    const registered = register.responses['201'].content['application/json'].schema;
    expect(registered).toEqual({ $ref: '#/components/schemas/RegisteredTenant' });
    expect(doc.components.schemas.RegisteredTenant.required).toEqual(expect.arrayContaining(['api_key', 'tenant_id']));
    for (const r of routes) {
      const op = operationOf(doc, r.template, r.method)!;
      const success = Object.keys(op.responses).filter((c) => c.startsWith('2'));
      const both = r.procedure === 'modules.install' || r.procedure === 'memory.upsert';
      expect(success.sort(), `${r.method} ${r.template}`).toEqual(both ? ['200', '201'] : [String(r.meta.successStatus ?? 200)]);
    }
    const health = doc.paths['/api/v1/health'].get.responses;
    // The 503 of health is the health document itself, not an Error.
    expect(health['503'].content['application/json'].schema).toEqual(health['200'].content['application/json'].schema);
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

    it("lists every event kind (the spec's 12 and the added ones, webhook.disabled among them) plus webhook.test", () => {
      expect(EVENT_TYPES.length).toBeGreaterThanOrEqual(13);
      expect(EVENT_TYPES).toContain('webhook.disabled');
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
          expect.arrayContaining(['webhook-id', 'webhook-signature', 'webhook-timestamp', 'x-webhook-id', 'x-webhook-signature']),
        );
        expect(Object.keys(op.responses), kind).toContain('2XX');
      }
    });

    it('execution.completed data carries the documented fields', () => {
      const data = dataOf('execution.completed');
      const fields = ['execution_id', 'module', 'action', 'status', 'latency_ms', 'request_id', 'tenant_id'];
      expect(Object.keys(data.properties)).toEqual(expect.arrayContaining(fields));
      expect(data.required).toEqual(expect.arrayContaining(fields));
      expect(data.properties.latency_ms.type).toBe('integer');
      expect(data.properties.status.const ?? data.properties.status.enum?.[0]).toBe('success');
    });

    it('certification.completed data carries the documented fields', () => {
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

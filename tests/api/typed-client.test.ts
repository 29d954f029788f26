import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { generateOpenApiTypes, OPENAPI_TYPES_FILE } from '../../scripts/openapi-types';
import type { components, paths } from '../generated/openapi';
import { startTestServer, type TestServer } from '../harness';

type ApiError = components['schemas']['ApiError'];

describe('typed client generated from the OpenAPI document (embedded)', () => {
  let s: TestServer;
  let client: ReturnType<typeof createClient<paths>>;
  beforeAll(async () => {
    s = await startTestServer();
    client = createClient<paths>({ baseUrl: s.url });
  });
  afterAll(async () => s?.close());

  it('the committed types are exactly what `npm run openapi:types` generates now', async () => {
    const committed = readFileSync(OPENAPI_TYPES_FILE, 'utf8');
    const fresh = await generateOpenApiTypes();
    // On failure: run `npm run openapi:types` and commit tests/generated/openapi.d.ts.
    expect(fresh).toBe(committed);
  });

  it('registers, lists keys, and gets a typed 404 error body', async () => {
    const email = `typed-${randomBytes(5).toString('hex')}@example.com`;
    const registered = await client.POST('/api/v1/auth/register', { body: { agent_name: 'typed-client', owner_email: email } });
    expect(registered.response.status).toBe(201);
    expect(registered.error).toBeUndefined();
    const tenant = registered.data!;
    expectTypeOf(tenant.api_key).toEqualTypeOf<string>();
    expectTypeOf(tenant.plan).toEqualTypeOf<'free' | 'pro' | 'business' | 'enterprise'>();
    expect(tenant.plan).toBe('free');
    expect(tenant.api_key).toMatch(/^amp_/);
    expect(tenant.tenant_id).toEqual(expect.any(String));

    const headers = { 'x-api-key': tenant.api_key };
    const listed = await client.GET('/api/v1/keys', { headers, params: { query: { limit: 10 } } });
    expect(listed.response.status).toBe(200);
    const list = listed.data!;
    expectTypeOf(list.data).toEqualTypeOf<paths['/api/v1/keys']['get']['responses'][200]['content']['application/json']['data']>();
    expectTypeOf(list.data[0]!.scopes).toEqualTypeOf<string[]>();
    expect(list.has_more).toBe(false);
    expect(list.next_cursor).toBeNull();
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ primary: true, scopes: ['*'], prefix: tenant.api_key.slice(0, 12) });
    expect(listed.response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);

    const revoked = await client.DELETE('/api/v1/keys/{key_id}', { headers, params: { path: { key_id: 'key_doesnotexist000000' } } });
    expect(revoked.response.status).toBe(404);
    expect(revoked.data).toBeUndefined();
    const error = revoked.error!;
    expectTypeOf(error.error).toEqualTypeOf<ApiError['error']>();
    expectTypeOf(error.request_id).toEqualTypeOf<string>();
    const code: ApiError['error'] = error.error;
    expect(code).toBe('not_found');
    expect(error.message).toEqual(expect.any(String));
    expect(error.request_id).toBe(revoked.response.headers.get('x-request-id'));

    // Without a key, the typed error is the 401 one.
    const anonymous = await client.GET('/api/v1/keys');
    expect(anonymous.response.status).toBe(401);
    expect(anonymous.error?.error).toBe('unauthorized');
  });
});

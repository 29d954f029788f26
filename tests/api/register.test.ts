import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

backends.describe('registration (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend });
  });
  afterAll(async () => s?.close());

  it('registers a free tenant with its primary key (201, spec fields)', async () => {
    const res = await s.call('/api/v1/auth/register', { body: { agent_name: 'scout', owner_email: 'Scout@Example.com' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      api_key: expect.stringMatching(/^amp_[A-Za-z0-9]{32,}$/),
      tenant_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      plan: 'free',
      limits: { modules: 10, executions_per_month: 1000 },
    });
    const keys = await s.call('/api/v1/keys', { key: res.body.api_key });
    expect(keys.status).toBe(200);
    expect(keys.body.data).toEqual([expect.objectContaining({ scopes: ['*'], primary: true })]);
  });

  it('rejects a second registration of the same email, whatever its case (409)', async () => {
    await s.register({ owner_email: 'dup@example.com' });
    expectError(await s.call('/api/v1/auth/register', { body: { agent_name: 'b', owner_email: 'DUP@example.com' } }), 409, 'conflict');
  });

  it.each([
    ['missing fields', {}],
    ['bad email', { agent_name: 'a', owner_email: 'not-an-email' }],
    ['empty agent name', { agent_name: '  ', owner_email: 'e1@example.com' }],
    ['wrong types', { agent_name: 5, owner_email: ['x'] }],
    ['unknown field', { agent_name: 'a', owner_email: 'e2@example.com', plan: 'enterprise' }],
    ['array body', [1, 2]],
    // The built-in modules' publisher: a tenant so named could pass its modules off as the platform's.
    ['reserved agent name', { agent_name: ' Platform ', owner_email: 'e3@example.com' }],
  ])('rejects %s with 400 invalid_request and issues', async (_name, body) => {
    const err = expectError(await s.call('/api/v1/auth/register', { body }), 400, 'invalid_request');
    expect(Array.isArray(err.issues)).toBe(true);
  });

  it('rejects malformed JSON with 400, and accepts a body with no content type', async () => {
    expectError(await s.call('/api/v1/auth/register', { method: 'POST', rawBody: '{"agent_name":' }), 400, 'invalid_request');
    const res = await fetch(`${s.url}/api/v1/auth/register`, {
      method: 'POST',
      body: JSON.stringify({ agent_name: 'plain', owner_email: 'plain@example.com' }),
    });
    expect(res.status).toBe(201);
    const charset = await s.call('/api/v1/auth/register', {
      rawBody: JSON.stringify({ agent_name: 'cs', owner_email: 'charset@example.com' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(201);
  });
});

describe('registration limit per client IP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { REGISTER_LIMIT_PER_HOUR: '2' } });
  });
  afterAll(async () => s?.close());

  it('answers 429 with the rate-limit body past REGISTER_LIMIT_PER_HOUR', async () => {
    await s.register();
    await s.register();
    const res = await s.call('/api/v1/auth/register', { body: { agent_name: 'x', owner_email: 'third@example.com' } });
    const body = expectError(res, 429, 'rate_limit_exceeded');
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    expect(body.retry_after).toBe(retryAfter);
    expect(body.limit).toBe(2);
    expect(new Date(body.reset_at).toISOString()).toBe(body.reset_at);
    // The headers report the client IP's public pool (a 60 s window), not the hourly registration limit.
    expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=600;w=60');
  });
});

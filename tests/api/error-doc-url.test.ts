/**
 * docs/decisions.md, Errors: every error body carries `doc_url`, the code's section of the served
 * error reference on PUBLIC_BASE_URL (`${PUBLIC_BASE_URL}/docs/errors#<code>`), whatever wrote it:
 * a REST route, the API's own 404, authentication, the rate limit, tRPC, the raw 400 of a request
 * that is not HTTP. The reference (src/contract/error-docs.ts) documents every code of ERRORS.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_DOCS, ERROR_REFERENCE, errorDocUrl } from '../../src/contract/error-docs';
import { ERRORS } from '../../src/contract/errors';
import { backends, expectError, startTestServer, type TestServer } from '../harness';

/** Not the server's own address: doc_url comes from the configuration, never from the request. */
const PUBLIC_BASE_URL = 'https://api.example.test';
const docUrl = (code: string) => `${PUBLIC_BASE_URL}/docs/errors#${code}`;

/** Bytes that are not HTTP/1.1, answered by server.ts's raw 400; the status and the parsed body. */
function rawRefusal(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(rest.join('\r\n\r\n')) as Record<string, unknown> });
    });
  });
}

describe('the error reference (src/contract/error-docs.ts)', () => {
  it('documents every code of ERRORS, in the table order, with what it means and what to do', () => {
    expect(Object.keys(ERROR_DOCS).sort()).toEqual(Object.keys(ERRORS).sort());
    expect(ERROR_REFERENCE.map((e) => e.code)).toEqual(Object.keys(ERRORS));
    for (const e of ERROR_REFERENCE) {
      expect(e.status, e.code).toBe(ERRORS[e.code].status);
      expect(e.meaning.length, e.code).toBeGreaterThan(20);
      expect(e.action.length, e.code).toBeGreaterThan(20);
    }
  });

  it('lists the fields policy_denied and key_limit_exceeded carry, with their values', () => {
    const fields = (code: keyof typeof ERRORS) => Object.fromEntries(ERROR_DOCS[code].fields.map((f) => [f.name, f.what]));
    const denied = fields('policy_denied');
    expect(Object.keys(denied)).toEqual(expect.arrayContaining(['rule', 'reason']));
    for (const reason of ['module_not_allowed', 'trust_below_minimum', 'definition_changed', 'ip_not_allowed', 'key_expired'])
      expect(denied.reason).toContain(reason);
    const keyLimit = fields('key_limit_exceeded');
    expect(Object.keys(keyLimit)).toEqual(expect.arrayContaining(['limit', 'cap', 'reset_at', 'retry_after']));
    for (const limit of ['requests_per_minute', 'executions_per_month', 'spend_cap_usd']) expect(keyLimit.limit).toContain(limit);
  });

  it("builds an absolute URL to the code's section, whatever trailing slash the base has", () => {
    expect(errorDocUrl('https://amp.example.com', 'quota_exceeded')).toBe('https://amp.example.com/docs/errors#quota_exceeded');
    expect(errorDocUrl('https://amp.example.com/', 'not_found')).toBe('https://amp.example.com/docs/errors#not_found');
  });
});

describe.each(backends())('doc_url on every error body (%s)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: { PUBLIC_BASE_URL } });
  });
  afterAll(async () => s?.close());

  it('a 404 links not_found', async () => {
    const body = expectError(await s.call('/api/v1/no-such-endpoint'), 404, 'not_found');
    expect(body.doc_url).toBe(docUrl('not_found'));
    const t = await s.register();
    const missing = expectError(await s.call('/api/v1/executions/exe_doesnotexist', { key: t.apiKey }), 404, 'not_found');
    expect(missing.doc_url).toBe(docUrl('not_found'));
  });

  it('a 401 links unauthorized', async () => {
    const body = expectError(await s.call('/api/v1/executions', { key: 'amp_not_a_real_key' }), 401, 'unauthorized');
    expect(body).toEqual({
      error: 'unauthorized',
      message: expect.any(String),
      request_id: expect.any(String),
      doc_url: docUrl('unauthorized'),
    });
  });

  it('a 429 links rate_limit_exceeded, beside its own fields', async () => {
    const t = await s.register();
    await s.setPlan(t.tenantId, 'free', 1);
    expect((await s.call('/api/v1/executions', { key: t.apiKey })).status).toBe(200);
    const over = await s.call('/api/v1/executions', { key: t.apiKey });
    const body = expectError(over, 429, 'rate_limit_exceeded');
    expect(body).toEqual({
      error: 'rate_limit_exceeded',
      message: expect.any(String),
      request_id: over.headers.get('x-request-id'),
      doc_url: docUrl('rate_limit_exceeded'),
      limit: 1,
      retry_after: Number(over.headers.get('retry-after')),
      reset_at: expect.any(String),
    });
  });

  it('the raw 400 of a request that is not HTTP links invalid_request', async () => {
    const { status, body } = await rawRefusal(s.url);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'invalid_request', doc_url: docUrl('invalid_request') });
  });

  it('without the dashboard, the service serves the reference itself: a section per code, where doc_url points', async () => {
    const body = expectError(await s.call('/api/v1/no-such-endpoint'), 404, 'not_found');
    const res = await fetch(`${s.url}${new URL(body.doc_url as string).pathname}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    for (const code of Object.keys(ERRORS)) expect(html, code).toContain(`<section id="${code}">`);
    expect(html).toContain(ERROR_DOCS.insufficient_scope.action);
    expect((await fetch(`${s.url}/docs/errors`, { method: 'HEAD' })).status).toBe(200);
    // Only the reference: other pages of the dashboard are still not here.
    expectError(await s.call('/docs'), 404, 'not_found');
    expectError(await s.call('/docs/errors', { method: 'POST', body: {} }), 404, 'not_found');
  });

  it("tRPC's error data carries the same body, doc_url included", async () => {
    const t = await s.register();
    const res = await s.call('/api/trpc/no.such.procedure', { key: t.apiKey });
    expect(res.status).toBe(404);
    expect(res.body.error.data.app).toMatchObject({ error: 'not_found', doc_url: docUrl('not_found') });
  });
});

/**
 * The http module's examples use public URLs, so they are NOT executed here (this machine's
 * network is off-limits): the standard metadata/schema checks are repeated without running the
 * examples, and the actions run against a node:http server on 127.0.0.1 with
 * allowPrivateNetwork: true. Refusals are checked with socket connects made to throw.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACTION_NAME, MODULE_NAME, newAjv, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describe('module http (definitions, examples not executed)', () => {
  const ajv = newAjv();

  it('has a valid name, metadata and unique actions', () => {
    expect(def.name).toMatch(MODULE_NAME);
    expect(def.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(def.description.length).toBeGreaterThan(20);
    expect(new Set(def.actions.map((a) => a.name)).size).toBe(def.actions.length);
  });

  for (const action of def.actions) {
    it(`${action.name}: name, schemas, nondeterministic examples valid against the schemas`, () => {
      expect(action.name).toMatch(ACTION_NAME);
      expect(action.name.length).toBeLessThanOrEqual(30);
      expect(action.description.length).toBeGreaterThan(15);
      expect(action.nondeterministic).toBe(true);
      expect(action.inputSchema.type).toBe('object');
      const validateInput = ajv.compile(action.inputSchema);
      const validateOutput = ajv.compile(action.outputSchema);
      expect(action.examples.length).toBeGreaterThan(0);
      for (const example of action.examples) {
        expect(validateInput(example.input), JSON.stringify(validateInput.errors)).toBe(true);
        expect(validateOutput(example.output), JSON.stringify(validateOutput.errors)).toBe(true);
        expect(JSON.parse(JSON.stringify(example.output))).toEqual(example.output);
      }
    });
  }
});

const local = testContext({ allowPrivateNetwork: true });
const guarded = testContext();
const action = (name: string) => {
  const a = def.actions.find((x) => x.name === name);
  if (!a) throw new Error(`no action ${name}`);
  const validate = newAjv().compile(a.outputSchema);
  return async (input: Record<string, unknown>, ctx = local): Promise<any> => {
    const out = await a.run(input, ctx);
    expect(validate(out), JSON.stringify(validate.errors)).toBe(true);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
    return out;
  };
};

let server: http.Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    const url = new URL(req.url ?? '/', 'http://x');
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      switch (url.pathname) {
        case '/text':
          res.setHeader('content-type', 'text/plain; charset=utf-8');
          res.setHeader('content-length', String(Buffer.byteLength('héllo')));
          res.end(req.method === 'HEAD' ? undefined : 'héllo');
          return;
        case '/echo':
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ method: req.method, query: Object.fromEntries(url.searchParams), body, headers: req.headers }));
          return;
        case '/created':
          res.statusCode = 201;
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ id: 'itm_1', received: JSON.parse(body || 'null') }));
          return;
        case '/binary':
          res.setHeader('content-type', 'application/octet-stream');
          res.end(Buffer.from([0xff, 0xfe, 0x00, 0x01]));
          return;
        case '/big':
          res.setHeader('content-type', 'text/plain');
          res.setHeader('content-encoding', 'gzip');
          res.end(zlib.gzipSync('a'.repeat(2 * 1024 * 1024)));
          return;
        case '/moved':
          res.statusCode = 301;
          res.setHeader('location', '/text');
          res.end();
          return;
        case '/html':
          res.statusCode = 404;
          res.setHeader('content-type', 'text/html');
          res.end('<h1>nope</h1>');
          return;
        case '/empty':
          res.statusCode = 204;
          res.end();
          return;
        case '/slow':
          setTimeout(() => res.end('late'), 1500);
          return;
        default:
          res.statusCode = 404;
          res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('http.fetch against a local server (allowPrivateNetwork)', () => {
  it('GET text', async () => {
    const out = await action('fetch')({ url: `${base}/text` });
    expect(out).toMatchObject({
      status: 200,
      ok: true,
      body: 'héllo',
      body_encoding: 'text',
      truncated: false,
      bytes: 6,
      content_type: 'text/plain; charset=utf-8',
      redirects: 0,
    });
    expect(out.elapsed_ms).toBeGreaterThanOrEqual(0);
  });

  it('POST with headers, query and body', async () => {
    const out = await action('fetch')({
      url: `${base}/echo?a=1`,
      method: 'POST',
      query: { b: 'x y', c: 3 },
      headers: { 'Content-Type': 'text/plain', 'X-Test': 'yes' },
      body: 'payload',
    });
    const echoed = JSON.parse(out.body);
    expect(echoed).toMatchObject({ method: 'POST', body: 'payload', query: { a: '1', b: 'x y', c: '3' } });
    expect(echoed.headers['x-test']).toBe('yes');
    expect(echoed.headers['content-type']).toBe('text/plain');
  });

  it('binary bodies come back as base64', async () => {
    const out = await action('fetch')({ url: `${base}/binary` });
    expect(out).toMatchObject({ body: '//4AAQ==', body_encoding: 'base64', bytes: 4 });
    expect((await action('fetch')({ url: `${base}/text`, response_encoding: 'base64' })).body).toBe(
      Buffer.from('héllo').toString('base64'),
    );
  });

  it('truncates at 1 MB (after decompression) and at max_bytes', async () => {
    const out = await action('fetch')({ url: `${base}/big` });
    expect(out.truncated).toBe(true);
    // Cut at 1 MB, then by the little more the headers and fields need to fit the 1 MiB output.
    expect(out.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(out.bytes).toBeGreaterThan(1_040_000);
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(1024 * 1024);
    // As base64 the 1 MB would not fit the 1 MiB output: the body is cut further, still truncated, not a failure.
    const binary = await action('fetch')({ url: `${base}/big`, response_encoding: 'base64' });
    expect(binary.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(binary))).toBeLessThanOrEqual(1024 * 1024);
    expect(Buffer.from(binary.body, 'base64').length).toBe(binary.bytes);
    expect(binary.bytes).toBeGreaterThan(700_000);
    const small = await action('fetch')({ url: `${base}/big`, max_bytes: 10 });
    expect(small).toMatchObject({ truncated: true, bytes: 10, body: 'aaaaaaaaaa' });
  });

  it('follows redirects unless told not to; non-2xx is a result, not an error', async () => {
    expect(await action('fetch')({ url: `${base}/moved` })).toMatchObject({
      status: 200,
      redirects: 1,
      url: `${base}/text`,
      body: 'héllo',
    });
    expect(await action('fetch')({ url: `${base}/moved`, follow_redirects: false })).toMatchObject({
      status: 301,
      ok: false,
      redirects: 0,
    });
    expect(await action('fetch')({ url: `${base}/html` })).toMatchObject({ status: 404, ok: false, body: '<h1>nope</h1>' });
  });

  it('times out within timeout_ms as a module error (not an input error)', async () => {
    const err = await action('fetch')({ url: `${base}/slow`, timeout_ms: 200 }).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ActionInputError);
    expect(err.message).toMatch(/timed out after 200 ms/);
  });

  it('stops when the execution deadline (ctx.signal) fires', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await expect(action('fetch')({ url: `${base}/slow` }, { ...local, signal: ac.signal })).rejects.toThrow(/aborted/);
  });

  it('refuses bodies on GET and forbidden headers', async () => {
    await expect(action('fetch')({ url: `${base}/echo`, body: 'x' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('fetch')({ url: `${base}/echo`, headers: { Host: 'evil' } })).rejects.toThrow(/cannot be set/);
    await expect(action('fetch')({ url: `${base}/echo`, headers: { 'Transfer-Encoding': 'chunked' } })).rejects.toBeInstanceOf(
      ActionInputError,
    );
    await expect(action('fetch')({ url: `${base}/echo`, headers: { 'X-A': 'a\r\nInjected: 1' } })).rejects.toThrow(/line break/);
  });
});

describe('http.head and http.json', () => {
  it('head returns status and length without a body', async () => {
    const out = await action('head')({ url: `${base}/text` });
    expect(out).toMatchObject({ status: 200, ok: true, content_type: 'text/plain; charset=utf-8', content_length: 6 });
  });

  it('json sends and parses JSON', async () => {
    const out = await action('json')({ url: `${base}/created`, method: 'POST', json: { name: 'Widget', qty: 2 } });
    expect(out).toMatchObject({ status: 201, ok: true, data: { id: 'itm_1', received: { name: 'Widget', qty: 2 } } });
    const echo = await action('json')({ url: `${base}/echo` });
    expect(echo.data.headers.accept).toBe('application/json');
    expect((await action('json')({ url: `${base}/empty`, method: 'DELETE' })).data).toBeNull();
  });

  it('json fails clearly on a non-JSON response', async () => {
    await expect(action('json')({ url: `${base}/html` })).rejects.toThrow(/HTTP 404, text\/html\) is not valid JSON/);
  });
});

describe('http SSRF guard (no allowPrivateNetwork)', () => {
  it.each([
    'http://127.0.0.1/',
    'https://10.0.0.1/',
    'https://[::1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://localhost:8080/',
    'http://[::ffff:127.0.0.1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://192.168.1.1/',
    'http://100.100.100.200/',
  ])('%s is refused as invalid input before any socket opens', async (url) => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
      throw new Error('a socket connect was attempted');
    });
    for (const name of ['fetch', 'head', 'json']) {
      await expect(action(name)({ url }, guarded)).rejects.toBeInstanceOf(ActionInputError);
    }
    expect(connect).not.toHaveBeenCalled();
  });

  it('the local server is refused too, and receives nothing', async () => {
    const before = hits;
    await expect(action('fetch')({ url: `${base}/text` }, guarded)).rejects.toThrow(/not allowed: loopback address/);
    expect(hits).toBe(before);
  });
});

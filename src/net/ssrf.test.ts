/**
 * SSRF guard. Refusals must happen before any socket opens: `net.Socket.prototype.connect` is
 * replaced by a spy that throws, so even a broken guard could not send traffic anywhere. The
 * only real connections go to a node:http server on 127.0.0.1 with allowPrivate.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertPublicUrl, classifyAddress, FetchError, guardedFetch, isPublicAddress, parseIPv6, pinnedLookup, SsrfError } from './ssrf';

function blockSockets() {
  return vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
    throw new Error('a socket connect was attempted');
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456:789a::1', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:a9fe:a9fe', 'link_local'],
    ['0:0:0:0:0:ffff:c0a8:0101', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['::127.0.0.1', 'reserved'],
    // IPv4-translated (SIIT): the IPv4 inside decides.
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:a00:1', 'private'],
    ['::ffff:0:8.8.8.8', 'public'],
    // Outside global unicast (2000::/3): reserved or unassigned.
    ['::1:2:3:4', 'reserved'],
    ['1::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['e000::1', 'reserved'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'reserved'],
    ['not-an-ip', 'invalid'],
    ['1.2.3', 'invalid'],
    ['2130706433', 'invalid'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:81b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it('parses IPv6 forms to 16 bytes', () => {
    expect(parseIPv6('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(parseIPv6('::ffff:1.2.3.4')?.slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
    expect(parseIPv6('1::')).toEqual([0, 1, ...Array(14).fill(0)]);
    expect(parseIPv6('1:::2')).toBeNull();
    expect(parseIPv6('127.0.0.1')).toBeNull();
  });
});

describe('assertPublicUrl refuses before any socket opens', () => {
  it.each([
    ['http://127.0.0.1/', 'address_not_allowed'],
    ['http://127.0.0.1:8080/admin', 'address_not_allowed'],
    ['https://10.0.0.1/', 'address_not_allowed'],
    ['https://[::1]/', 'address_not_allowed'],
    ['http://[::1]:3000/', 'address_not_allowed'],
    ['http://169.254.169.254/latest/meta-data/', 'address_not_allowed'],
    ['http://[::ffff:127.0.0.1]/', 'address_not_allowed'],
    ['http://[::ffff:169.254.169.254]/', 'address_not_allowed'],
    ['http://[fe80::1]/', 'address_not_allowed'],
    ['http://[fd00::1]/', 'address_not_allowed'],
    ['http://2130706433/', 'address_not_allowed'],
    ['http://0x7f.1/', 'address_not_allowed'],
    ['http://0x7f000001/', 'address_not_allowed'],
    ['http://017700000001/', 'address_not_allowed'],
    ['http://0177.0.0.1/', 'address_not_allowed'],
    ['http://127.1/', 'address_not_allowed'],
    ['http://0/', 'address_not_allowed'],
    ['http://0.0.0.0:80/', 'address_not_allowed'],
    ['http://100.64.0.1/', 'address_not_allowed'],
    ['http://192.168.0.1/', 'address_not_allowed'],
    ['http://172.20.0.1/', 'address_not_allowed'],
    ['http://224.0.0.1/', 'address_not_allowed'],
    ['http://localhost/', 'address_not_allowed'],
    ['http://localhost:3000/', 'address_not_allowed'],
    ['ftp://example.com/', 'protocol_not_allowed'],
    ['file:///etc/passwd', 'protocol_not_allowed'],
    ['gopher://127.0.0.1:6379/_INFO', 'protocol_not_allowed'],
    ['data:text/plain,hi', 'protocol_not_allowed'],
    ['not a url', 'invalid_url'],
    ['http://', 'invalid_url'],
  ])('%s -> %s', async (url, code) => {
    const connect = blockSockets();
    await expect(assertPublicUrl(url)).rejects.toMatchObject({ name: 'SsrfError', code });
    await expect(guardedFetch(url)).rejects.toMatchObject({ name: 'SsrfError', code });
    expect(connect).not.toHaveBeenCalled();
  });

  it('refuses a hostname when any resolved address is private (no real DNS)', async () => {
    const connect = blockSockets();
    const lookup = vi.fn(async () => [
      { address: '93.184.215.14', family: 4 as const },
      { address: '10.0.0.7', family: 4 as const },
    ]);
    await expect(guardedFetch('https://rebind.example/', { lookup })).rejects.toMatchObject({ code: 'address_not_allowed' });
    await expect(
      assertPublicUrl('https://mapped.example/', { lookup: async () => [{ address: '::ffff:127.0.0.1', family: 6 }] }),
    ).rejects.toBeInstanceOf(SsrfError);
    expect(lookup).toHaveBeenCalledWith('rebind.example');
    expect(connect).not.toHaveBeenCalled();
  });

  it('reports a DNS failure as dns_failure', async () => {
    const lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(assertPublicUrl('https://nowhere.example/', { lookup })).rejects.toMatchObject({ code: 'dns_failure' });
    await expect(assertPublicUrl('https://nowhere.example/', { lookup: async () => [] })).rejects.toMatchObject({ code: 'dns_failure' });
  });

  it('accepts a public address (checked only, nothing is requested)', async () => {
    const connect = blockSockets();
    const checked = await assertPublicUrl('https://api.example.com/x', { lookup: async () => [{ address: '93.184.215.14', family: 4 }] });
    expect(checked.addresses).toEqual([{ address: '93.184.215.14', family: 4 }]);
    expect(checked.hostname).toBe('api.example.com');
    expect(connect).not.toHaveBeenCalled();
  });

  it('requireHttps refuses http:// unless allowPrivate', async () => {
    const lookup = async () => [{ address: '93.184.215.14', family: 4 as const }];
    await expect(assertPublicUrl('http://hooks.example.com/', { requireHttps: true, lookup })).rejects.toMatchObject({
      code: 'protocol_not_allowed',
    });
    await expect(assertPublicUrl('http://127.0.0.1/', { requireHttps: true, allowPrivate: true })).resolves.toBeTruthy();
  });

  it('allowPrivate lifts the address check but not the protocol check', async () => {
    await expect(assertPublicUrl('http://127.0.0.1/', { allowPrivate: true })).resolves.toMatchObject({ hostname: '127.0.0.1' });
    await expect(assertPublicUrl('http://[::1]/', { allowPrivate: true })).resolves.toMatchObject({ hostname: '::1' });
    await expect(assertPublicUrl('file:///etc/passwd', { allowPrivate: true })).rejects.toMatchObject({ code: 'protocol_not_allowed' });
  });
});

describe('pinnedLookup', () => {
  it('answers only with the checked addresses', async () => {
    const lookup = pinnedLookup([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    const one = await new Promise((resolve) => lookup('evil.example', {}, (err, address, family) => resolve({ err, address, family })));
    expect(one).toEqual({ err: null, address: '93.184.215.14', family: 4 });
    const all = await new Promise((resolve) => lookup('evil.example', { all: true }, (_e, address) => resolve(address)));
    expect(all).toHaveLength(2);
    const v6 = await new Promise((resolve) => lookup('evil.example', { family: 6 }, (_e, address) => resolve(address)));
    expect(v6).toBe('2606:2800:21f:cb07:6820:80da:af6b:8b2c');
  });
});

describe('guardedFetch against a local server (allowPrivate)', () => {
  let server: http.Server;
  let base: string;
  let hits = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits++;
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/hello') {
        res.setHeader('content-type', 'text/plain');
        res.setHeader('x-method', req.method ?? '');
        res.end('hello world');
      } else if (url.pathname === '/echo') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null, ct: req.headers['content-type'] ?? null }),
          );
        });
      } else if (url.pathname === '/redirect') {
        const n = Number(url.searchParams.get('n') ?? '1');
        res.statusCode = Number(url.searchParams.get('status') ?? '302');
        res.setHeader('location', n > 1 ? `/redirect?n=${n - 1}&status=${res.statusCode}` : '/echo');
        res.end();
      } else if (url.pathname === '/to-metadata') {
        res.statusCode = 302;
        res.setHeader('location', 'http://169.254.169.254/latest/meta-data/');
        res.end();
      } else if (url.pathname === '/big') {
        res.setHeader('content-type', 'text/plain');
        res.end('x'.repeat(5000));
      } else if (url.pathname === '/gzip') {
        res.setHeader('content-encoding', 'gzip');
        res.end(zlib.gzipSync('compressed hello'));
      } else if (url.pathname === '/slow') {
        setTimeout(() => res.end('late'), 2000);
      } else {
        res.statusCode = 404;
        res.end('not found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('is refused without allowPrivate, and no request reaches the server', async () => {
    const before = hits;
    await expect(guardedFetch(`${base}/hello`)).rejects.toMatchObject({ code: 'address_not_allowed' });
    expect(hits).toBe(before);
  });

  it('fetches with allowPrivate', async () => {
    const res = await guardedFetch(`${base}/hello`, { allowPrivate: true });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello world');
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.truncated).toBe(false);
    expect(res.redirects).toBe(0);
    expect(res.remoteAddress).toBe('127.0.0.1');
    expect(res.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('connects to the pinned address, whatever the host name', async () => {
    const lookup = vi.fn(async () => [{ address: '127.0.0.1', family: 4 as const }]);
    const port = (server.address() as AddressInfo).port;
    const res = await guardedFetch(`http://pinned.test:${port}/hello`, { allowPrivate: true, lookup });
    expect(res.body.toString()).toBe('hello world');
    expect(lookup).toHaveBeenCalledTimes(1);
  });

  it('sends method, headers and body', async () => {
    const res = await guardedFetch(`${base}/echo`, {
      allowPrivate: true,
      method: 'POST',
      body: '{"a":1}',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer t' },
    });
    expect(JSON.parse(res.body.toString())).toEqual({ method: 'POST', body: '{"a":1}', auth: 'Bearer t', ct: 'application/json' });
  });

  it('follows redirects (303/302 POST become GET) up to the limit', async () => {
    const res = await guardedFetch(`${base}/redirect?n=3`, { allowPrivate: true, method: 'POST', body: 'x' });
    expect(res.redirects).toBe(3);
    expect(res.url).toBe(`${base}/echo`);
    expect(JSON.parse(res.body.toString())).toMatchObject({ method: 'GET', body: '' });
    const kept = await guardedFetch(`${base}/redirect?n=1&status=307`, { allowPrivate: true, method: 'POST', body: 'x' });
    expect(JSON.parse(kept.body.toString())).toMatchObject({ method: 'POST', body: 'x' });
    await expect(guardedFetch(`${base}/redirect?n=6`, { allowPrivate: true })).rejects.toMatchObject({
      name: 'FetchError',
      code: 'too_many_redirects',
    });
    const first = await guardedFetch(`${base}/redirect?n=2`, { allowPrivate: true, maxRedirects: 0 });
    expect(first.status).toBe(302);
    expect(first.headers.location).toContain('/redirect');
  });

  it('re-checks every redirect hop', async () => {
    // "public.test" resolves (fake DNS) to a public address, so the first hop passes the guard
    // without allowPrivate; the connect spy re-targets that one socket to the local server, so no
    // packet leaves the machine. The server redirects to the metadata address, which must be
    // refused before any socket is opened for it.
    const port = (server.address() as AddressInfo).port;
    const lookup = vi.fn(async () => [{ address: '93.184.215.14', family: 4 as const }]);
    const realConnect = net.Socket.prototype.connect;
    const targets: string[] = [];
    vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (this: net.Socket, ...args: any[]) {
      const opts = Array.isArray(args[0]) ? args[0][0] : args[0];
      targets.push(String(opts?.host));
      if (opts?.host !== 'public.test') throw new Error(`blocked connect to ${opts?.host}`);
      opts.host = '127.0.0.1';
      opts.port = port;
      delete opts.lookup;
      return (realConnect as any).apply(this, args);
    });
    const before = hits;
    const err = await guardedFetch('http://public.test/to-metadata', { lookup }).catch((e) => e);
    expect(err).toBeInstanceOf(SsrfError);
    expect(err.code).toBe('address_not_allowed');
    expect(err.message).toContain('169.254.169.254');
    expect(hits).toBe(before + 1);
    expect(targets).toEqual(['public.test']);
  });

  it('truncates the body at maxBytes', async () => {
    const res = await guardedFetch(`${base}/big`, { allowPrivate: true, maxBytes: 1000 });
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(1000);
  });

  it('decodes gzip bodies', async () => {
    const res = await guardedFetch(`${base}/gzip`, { allowPrivate: true });
    expect(res.body.toString()).toBe('compressed hello');
  });

  it('HEAD returns no body', async () => {
    const res = await guardedFetch(`${base}/hello`, { allowPrivate: true, method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers['x-method']).toBe('HEAD');
    expect(res.body.length).toBe(0);
  });

  it('times out', async () => {
    await expect(guardedFetch(`${base}/slow`, { allowPrivate: true, timeoutMs: 200 })).rejects.toMatchObject({
      name: 'FetchError',
      code: 'timeout',
    });
  });

  it('honours an external abort signal', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await expect(guardedFetch(`${base}/slow`, { allowPrivate: true, signal: ac.signal })).rejects.toMatchObject({ code: 'aborted' });
  });

  it('reports a refused connection as a network error', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const err = await guardedFetch(`http://127.0.0.1:${port}/`, { allowPrivate: true }).catch((e) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('network');
    expect(err.message).toBe('The connection was refused.');
  });
});

/**
 * SSRF guard for outbound requests made on behalf of tenants (the `http` module, webhook
 * receivers, `http`-runtime module endpoints).
 *
 * Rules:
 * - only `http:` and `https:` URLs (optionally https only);
 * - the host is resolved once (every address), and the request is refused when ANY address is
 *   not a public unicast address (loopback, private, link-local, unique-local, CGNAT, multicast,
 *   reserved, documentation ranges, and IPv6 forms that embed one of those IPv4 addresses);
 * - the connection is pinned to the checked addresses (a custom `lookup`), so a second DNS
 *   answer (DNS rebinding) cannot send the socket elsewhere;
 * - redirects are followed by hand, and every hop is checked again;
 * - time and response size are limited.
 *
 * `allowPrivate` (WEBHOOK_ALLOW_PRIVATE=1, development and tests) lifts the address and
 * https-only checks, never the protocol check.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

// ---------------------------------------------------------------------------------------------
// Address classification
// ---------------------------------------------------------------------------------------------

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'unique_local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'invalid';

interface Range {
  prefix: number[];
  bits: number;
  cls: AddressClass;
}

function v4(cidr: string, cls: AddressClass): Range {
  const [ip, bits] = cidr.split('/') as [string, string];
  return { prefix: ip.split('.').map(Number), bits: Number(bits), cls };
}

function v6(cidr: string, cls: AddressClass): Range {
  const [ip, bits] = cidr.split('/') as [string, string];
  return { prefix: parseIPv6(ip)!, bits: Number(bits), cls };
}

/** IPv4 special-purpose ranges (IANA registry) that must never be a request target. */
const IPV4_RANGES: Range[] = [
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link_local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', 'reserved'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'reserved'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('255.255.255.255/32', 'broadcast'),
  v4('240.0.0.0/4', 'reserved'),
];

/** IPv6 ranges checked after the forms that embed an IPv4 address have been unwrapped. */
const IPV6_RANGES: Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::/96', 'reserved'), // IPv4-compatible (deprecated)
  v6('64:ff9b:1::/48', 'private'), // local-use NAT64
  v6('100::/64', 'reserved'), // discard-only
  v6('2001::/23', 'reserved'), // IETF protocol assignments, Teredo included
  v6('2001:db8::/32', 'documentation'),
  v6('3fff::/20', 'documentation'),
  v6('5f00::/16', 'reserved'), // SRv6 SIDs
  v6('fc00::/7', 'unique_local'),
  v6('fe80::/10', 'link_local'),
  v6('fec0::/10', 'reserved'), // site-local (deprecated)
  v6('ff00::/8', 'multicast'),
];

const NAT64 = v6('64:ff9b::/96', 'public');

function matches(bytes: number[], range: Range): boolean {
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((range.prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Strict dotted-quad IPv4 parser (the canonical form; `net.isIPv4` rules). */
export function parseIPv4(ip: string): number[] | null {
  if (!net.isIPv4(ip)) return null;
  return ip.split('.').map(Number);
}

/** Parses an IPv6 address (no brackets; an optional `%zone` is ignored) into 16 bytes. */
export function parseIPv6(input: string): number[] | null {
  const ip = input.replace(/%.*$/, '');
  if (!net.isIPv6(ip)) return null;
  let head = ip;
  let tail4: number[] = [];
  const lastColon = ip.lastIndexOf(':');
  if (ip.slice(lastColon + 1).includes('.')) {
    const quad = parseIPv4(ip.slice(lastColon + 1));
    if (!quad) return null;
    tail4 = quad;
    head = ip.slice(0, lastColon + 1) + '0:0'; // placeholder groups, replaced below
  }
  const [left, right] = head.includes('::') ? (head.split('::') as [string, string]) : [head, undefined];
  const leftGroups = left ? left.split(':') : [];
  const rightGroups = right === undefined ? [] : right ? right.split(':') : [];
  const missing = 8 - leftGroups.length - rightGroups.length;
  if (right === undefined ? missing !== 0 : missing < 0) return null;
  const groups = [...leftGroups, ...Array<string>(right === undefined ? 0 : missing).fill('0'), ...rightGroups];
  const bytes: number[] = [];
  for (const g of groups) {
    const n = parseInt(g, 16);
    bytes.push((n >> 8) & 0xff, n & 0xff);
  }
  if (tail4.length) bytes.splice(12, 4, ...tail4);
  return bytes.length === 16 ? bytes : null;
}

function classifyV4(bytes: number[]): AddressClass {
  for (const r of IPV4_RANGES) if (matches(bytes, r)) return r.cls;
  return 'public';
}

/**
 * Classifies an IP address (IPv4 dotted quad, or IPv6 with or without brackets). IPv6 forms
 * that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16`) are classified by the embedded IPv4 address. Anything unparsable is `invalid`.
 */
export function classifyAddress(address: string): AddressClass {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const quad = parseIPv4(ip);
  if (quad) return classifyV4(quad);
  const bytes = parseIPv6(ip);
  if (!bytes) return 'invalid';
  const zero10 = bytes.slice(0, 10).every((b) => b === 0);
  if (zero10 && bytes[10] === 0xff && bytes[11] === 0xff) return classifyV4(bytes.slice(12)); // ::ffff:0:0/96
  // ::ffff:0:0:0/96, IPv4-translated (SIIT, RFC 6145): a translator forwards it to the IPv4 inside.
  if (bytes.slice(0, 8).every((b) => b === 0) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0)
    return classifyV4(bytes.slice(12));
  if (matches(bytes, NAT64)) return classifyV4(bytes.slice(12)); // NAT64
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return classifyV4(bytes.slice(2, 6)); // 6to4
  for (const r of IPV6_RANGES) if (matches(bytes, r)) return r.cls;
  // Global unicast is 2000::/3 (RFC 4291); the rest of the space is reserved or unassigned.
  if ((bytes[0]! & 0xe0) !== 0x20) return 'reserved';
  return 'public';
}

/** True only for a globally routable unicast address. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}

// ---------------------------------------------------------------------------------------------
// URL checks
// ---------------------------------------------------------------------------------------------

export type SsrfErrorCode = 'invalid_url' | 'protocol_not_allowed' | 'address_not_allowed' | 'dns_failure';

/** The URL may not be requested. Raised before any socket is opened. */
export class SsrfError extends Error {
  override name = 'SsrfError';
  constructor(
    readonly code: SsrfErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardOptions {
  /** Lift the address checks (and the https-only rule): WEBHOOK_ALLOW_PRIVATE=1. */
  allowPrivate?: boolean;
  /** Refuse `http:` unless allowPrivate (webhook receivers). Default false. */
  requireHttps?: boolean;
  /** DNS resolution (every address). Default: `dns.promises.lookup(host, { all: true })`. Tests inject one. */
  lookup?: LookupAll;
  /** Give up resolving after this long (a `dns_failure`): a silent name server must not hold the caller. */
  lookupTimeoutMs?: number;
}

export interface CheckedUrl {
  url: URL;
  /** The hostname without IPv6 brackets. */
  hostname: string;
  /** Every address the host resolved to, all checked: connect only to these. */
  addresses: ResolvedAddress[];
}

const defaultLookup: LookupAll = async (hostname) => {
  const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

function bareHost(url: URL): string {
  const h = url.hostname;
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/**
 * Parses `input`, checks the protocol, resolves the host and checks every address.
 * Numeric host forms (`2130706433`, `0x7f.1`, `017700000001`) are normalised by the WHATWG URL
 * parser to dotted quads before the check. Throws SsrfError; opens no socket.
 */
export async function assertPublicUrl(input: string | URL, options: GuardOptions = {}): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new SsrfError('invalid_url', 'The URL is not valid.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SsrfError('protocol_not_allowed', `Only http and https URLs are allowed, not ${url.protocol.replace(/:$/, '')}.`);
  }
  if (options.requireHttps && !options.allowPrivate && url.protocol !== 'https:') {
    throw new SsrfError('protocol_not_allowed', 'Only https URLs are allowed.');
  }
  const hostname = bareHost(url);
  if (!hostname) throw new SsrfError('invalid_url', 'The URL has no host.');

  let addresses: ResolvedAddress[];
  const family = net.isIP(hostname);
  if (family) {
    addresses = [{ address: hostname, family: family === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await withDeadline((options.lookup ?? defaultLookup)(hostname), options.lookupTimeoutMs);
    } catch {
      throw new SsrfError('dns_failure', `The host ${hostname} could not be resolved.`);
    }
    if (addresses.length === 0) throw new SsrfError('dns_failure', `The host ${hostname} could not be resolved.`);
  }
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const cls = classifyAddress(address);
      if (cls !== 'public') {
        throw new SsrfError(
          'address_not_allowed',
          `Requests to ${family ? address : `${hostname} (${address})`} are not allowed: ${cls.replace('_', '-')} address.`,
        );
      }
    }
  }
  return { url, hostname, addresses };
}

function withDeadline<T>(p: Promise<T>, ms: number | undefined): Promise<T> {
  if (ms === undefined) return p;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS timeout')), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `net.connect`/`http.request` that answers only with the addresses already
 * checked, so the socket connects to what was checked (no second DNS query, no rebinding).
 */
export function pinnedLookup(addresses: ResolvedAddress[]) {
  return (_hostname: string, opts: dns.LookupOptions | number | LookupCallback, cb?: LookupCallback) => {
    const callback = (typeof opts === 'function' ? opts : cb) as LookupCallback;
    const options = typeof opts === 'object' ? opts : {};
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    if (wanted.length === 0) {
      const err: NodeJS.ErrnoException = new Error('No checked address for the requested family');
      err.code = 'ENOTFOUND';
      process.nextTick(callback, err, '', 0);
      return;
    }
    if (options.all)
      process.nextTick(
        callback,
        null,
        wanted.map((a) => ({ address: a.address, family: a.family })),
      );
    else process.nextTick(callback, null, wanted[0]!.address, wanted[0]!.family);
  };
}

// ---------------------------------------------------------------------------------------------
// Guarded fetch
// ---------------------------------------------------------------------------------------------

export type FetchErrorCode = 'timeout' | 'aborted' | 'network' | 'too_many_redirects' | 'bad_redirect';

/** The request was allowed but failed (network error, timeout, redirect loop). */
export class FetchError extends Error {
  override name = 'FetchError';
  constructor(
    readonly code: FetchErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface GuardedFetchOptions extends GuardOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Overall deadline for every hop and the body, in ms. Default 10 000. */
  timeoutMs?: number;
  /** Bytes of (decoded) body kept; the rest is dropped and `truncated` set. Default 1 MiB. */
  maxBytes?: number;
  /** Redirects followed (each re-checked). 0 returns the 3xx response itself. Default 5. */
  maxRedirects?: number;
  /** Aborts the request (e.g. the execution's deadline). */
  signal?: AbortSignal;
  /** Decode gzip/deflate/br bodies (and ask for them). Default true. */
  decompress?: boolean;
  /**
   * Reuse connections (webhook receivers). Sockets are pooled per origin AND per set of checked
   * addresses, so a reused socket always goes to an address that passed the check. Default false.
   */
  keepAlive?: boolean;
}

export interface GuardedResponse {
  status: number;
  statusText: string;
  /** Response headers, names lower-case; repeated headers joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  body: Buffer;
  /** The body was longer than maxBytes. */
  truncated: boolean;
  /** The final URL (after redirects). */
  url: string;
  redirects: number;
  /** The address the final request connected to. */
  remoteAddress: string | null;
  elapsedMs: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_MAX_BYTES = 1024 * 1024;

interface HopResult {
  res: http.IncomingMessage;
  remoteAddress: string | null;
}

/** Requests open at once to one origin (per checked address set) with `keepAlive`; more wait for a socket. */
export const SOCKETS_PER_ORIGIN = 32;

/** Keep-alive agents by origin and checked addresses; the least recently used are closed. */
const agents = new Map<string, http.Agent>();
const MAX_AGENTS = 256;

function pinnedAgent(checked: CheckedUrl): http.Agent {
  const addresses = checked.addresses
    .map((a) => a.address)
    .sort()
    .join(',');
  const key = `${checked.url.protocol}//${checked.hostname}:${checked.url.port}|${addresses}`;
  let agent = agents.get(key);
  if (agent) {
    agents.delete(key); // re-inserted below: Map order is the recency order
  } else {
    // Idle sockets close after 4 s, before the common 5 s server keep-alive timeout, so a request
    // rarely meets a socket the server is closing; `timeout` destroys only idle (free) sockets.
    // As many may idle as may be busy: with fewer, every burst of webhook deliveries closed the
    // rest and reconnected them (4,511 connections for 10,000 deliveries at 8; 2 at 32).
    const options = {
      keepAlive: true,
      maxSockets: SOCKETS_PER_ORIGIN,
      maxFreeSockets: SOCKETS_PER_ORIGIN,
      timeout: 4_000,
      scheduling: 'lifo' as const,
    };
    agent = checked.url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    if (agents.size >= MAX_AGENTS) {
      const [oldestKey, oldest] = agents.entries().next().value!;
      agents.delete(oldestKey);
      oldest.destroy();
    }
  }
  agents.set(key, agent);
  return agent;
}

/**
 * One request. A reused keep-alive socket that the server closed as we sent (ECONNRESET before
 * any response) is retried once on a new connection: the request never reached the server.
 */
async function requestOnce(
  checked: CheckedUrl,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal,
  keepAlive: boolean,
): Promise<HopResult> {
  try {
    return await requestOnSocket(checked, method, headers, body, signal, keepAlive);
  } catch (err) {
    if (!(err instanceof StaleSocketError)) throw err;
    return requestOnSocket(checked, method, headers, body, signal, false);
  }
}

class StaleSocketError extends Error {}

function requestOnSocket(
  checked: CheckedUrl,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal,
  keepAlive: boolean,
): Promise<HopResult> {
  return new Promise((resolve, reject) => {
    const { url } = checked;
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      {
        protocol: url.protocol,
        hostname: checked.hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
        lookup: pinnedLookup(checked.addresses) as unknown as typeof dns.lookup,
        agent: keepAlive ? pinnedAgent(checked) : false,
        signal,
        servername: net.isIP(checked.hostname) ? undefined : checked.hostname,
      },
      (res) => resolve({ res, remoteAddress: res.socket?.remoteAddress ?? null }),
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(req.reusedSocket && err.code === 'ECONNRESET' && !signal.aborted ? new StaleSocketError(err.message) : err);
    });
    if (body && body.length) req.end(body);
    else req.end();
  });
}

function collectHeaders(res: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(name === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}

async function readBody(res: http.IncomingMessage, maxBytes: number, decompress: boolean): Promise<{ body: Buffer; truncated: boolean }> {
  let stream: Readable = res;
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (decompress) {
    if (encoding === 'gzip' || encoding === 'x-gzip') stream = res.pipe(zlib.createGunzip());
    else if (encoding === 'deflate') stream = res.pipe(zlib.createInflate());
    else if (encoding === 'br') stream = res.pipe(zlib.createBrotliDecompress());
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      if (size + buf.length > maxBytes) {
        chunks.push(buf.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(buf);
      size += buf.length;
    }
  } finally {
    if (truncated || !res.complete) res.destroy();
    if (stream !== res) stream.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated };
}

function describeNetworkError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ECONNREFUSED':
      return 'The connection was refused.';
    case 'ECONNRESET':
      return 'The connection was reset.';
    case 'ENOTFOUND':
      return 'The host could not be resolved.';
    case 'ETIMEDOUT':
      return 'The connection timed out.';
    case 'Z_DATA_ERROR':
    case 'Z_BUF_ERROR':
      return 'The response body could not be decompressed.';
    default:
      if (typeof e?.code === 'string' && (e.code.startsWith('ERR_TLS') || e.code.includes('CERT') || e.code.includes('SSL'))) {
        return `TLS error (${e.code}).`;
      }
      return `The request failed${e?.code ? ` (${e.code})` : ''}.`;
  }
}

/**
 * fetch-like request through the SSRF guard: checks (and pins) every hop, follows redirects by
 * hand, enforces the deadline and the body size. Throws SsrfError (refused, before any socket
 * opens) or FetchError (the request failed).
 */
export async function guardedFetch(input: string | URL, options: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const started = performance.now();
  const timeoutMs = Math.max(1, options.timeoutMs ?? 10_000);
  const maxBytes = Math.max(0, options.maxBytes ?? DEFAULT_MAX_BYTES);
  const maxRedirects = Math.max(0, options.maxRedirects ?? 5);
  const decompress = options.decompress ?? true;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;

  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body, 'utf8');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v;
  if (!headers['user-agent']) headers['user-agent'] = 'AgentModulePlatform/1.0';
  if (decompress && !headers['accept-encoding']) headers['accept-encoding'] = 'gzip, deflate, br';
  if (body && headers['content-length'] === undefined) headers['content-length'] = String(body.length);

  const fail = (err: unknown): never => {
    if (err instanceof SsrfError || err instanceof FetchError) throw err;
    if (timeout.aborted) throw new FetchError('timeout', `The request timed out after ${timeoutMs} ms.`);
    if (signal.aborted) throw new FetchError('aborted', 'The request was aborted.');
    throw new FetchError('network', describeNetworkError(err));
  };

  let current: string | URL = input;
  for (let redirects = 0; ; redirects++) {
    if (signal.aborted) fail(signal.reason);
    const checked = await assertPublicUrl(current, options);
    let hop: HopResult;
    try {
      hop = await requestOnce(checked, method, headers, body, signal, options.keepAlive ?? false);
    } catch (err) {
      return fail(err);
    }
    const { res } = hop;
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECT_STATUSES.has(status) && location && maxRedirects > 0) {
      res.resume();
      res.destroy();
      if (redirects >= maxRedirects) throw new FetchError('too_many_redirects', `More than ${maxRedirects} redirects.`);
      let next: URL;
      try {
        next = new URL(location, checked.url);
      } catch {
        throw new FetchError('bad_redirect', 'The redirect location is not a valid URL.');
      }
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        delete headers['content-length'];
        delete headers['content-type'];
      }
      if (next.origin !== checked.url.origin) {
        delete headers['authorization'];
        delete headers['cookie'];
        delete headers['proxy-authorization'];
      }
      current = next;
      continue;
    }
    try {
      let data: Buffer = Buffer.alloc(0);
      let truncated = false;
      if (method === 'HEAD') res.resume();
      else ({ body: data, truncated } = await readBody(res, maxBytes, decompress));
      return {
        status,
        statusText: res.statusMessage ?? '',
        headers: collectHeaders(res),
        body: data,
        truncated,
        url: checked.url.href,
        redirects,
        remoteAddress: hop.remoteAddress,
        elapsedMs: Math.round(performance.now() - started),
      };
    } catch (err) {
      return fail(err);
    }
  }
}

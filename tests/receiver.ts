/**
 * A real webhook receiver for the tests: node:http on loopback, recording every request with
 * its raw body bytes. `respond` decides each answer (status, delay); `verify` checks the
 * signature the way docs/webhooks.md tells receivers to: HMAC-SHA256 of the raw body, compared with
 * crypto.timingSafeEqual.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  at: number;
}

/** `after`: the answer waits until it settles (then `delayMs`), e.g. to hold an attempt in flight while a test acts. */
export type Responder = (req: Received, index: number) => { status: number; delayMs?: number; body?: string; after?: Promise<unknown> };

export interface Receiver {
  url: string;
  received: Received[];
  /** TCP connections accepted (also those that never sent a request, e.g. a TLS hello). */
  connections: number;
  respond: Responder;
  /** Resolves once `n` requests have arrived (matching `filter`), or rejects after `timeoutMs`. */
  waitFor(n: number, opts?: { timeoutMs?: number; filter?: (r: Received) => boolean }): Promise<Received[]>;
  close(): Promise<void>;
}

export function verifySignature(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || !/^[0-9a-f]{64}$/.test(header)) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(header, 'hex'));
}

export async function startReceiver(respond: Responder = () => ({ status: 200 })): Promise<Receiver> {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  const receiver: Receiver = {
    url: '',
    received,
    connections: 0,
    respond,
    waitFor(n, { timeoutMs = 15_000, filter = () => true } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const matching = received.filter(filter);
          if (matching.length >= n) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(matching);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: expected ${n} requests, got ${received.filter(filter).length} after ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      const entry: Received = { headers: req.headers, raw, body, at: Date.now() };
      const answer = receiver.respond(entry, received.length);
      received.push(entry);
      for (const w of [...waiters]) w();
      const send = () =>
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(answer.status, { 'content-type': 'text/plain' });
          res.end(answer.body ?? 'ok');
        }, answer.delayMs ?? 0);
      if (answer.after) void answer.after.finally(send);
      else send();
    });
  });
  server.on('connection', (s) => {
    receiver.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = receiver.close;
  receiver.close = async () => {
    for (const s of sockets) s.destroy();
    await close();
  };
  return receiver;
}

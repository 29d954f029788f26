import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServices } from '../../app';
import { loadConfig, type Config } from '../../config';
import type { Services } from '../../services';
import { consumePublicRequest, rateLimitHeaders } from '../../metering/requests';
import { errorBody, invalidRequest } from '../errors';
import { createRequestHandler, type NodeHandler } from './handler';
import { resolveRequestId } from './request';

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  svc: Services;
  config: Config;
  close(): Promise<void>;
}

/** Starts the service on `config.port` (0 = any free port); used by server.ts and the tests. */
export interface StartOptions {
  env?: Record<string, string | undefined>;
  next?: NodeHandler;
  pgliteTemplate?: string;
}

export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const config = loadConfig(options.env ?? process.env);
  const svc = await createServices(config, { pgliteTemplate: options.pgliteTemplate });
  const handler = createRequestHandler(svc, options.next);
  // Node's own refusal of an HTTP/1.1 request without Host is a bare 400; ours has the error format.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    if (req.headers.host === undefined && req.httpVersion === '1.1')
      return void refuseUnparsable(svc, httpError('MISSING_HOST'), req.socket);
    return handler(req, res);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => void refuseUnparsable(svc, err, socket));
  // Without a listener Node closes a CONNECT's socket unanswered.
  server.on('connect', (_req, socket: Duplex) => void refuseUnparsable(svc, httpError('CONNECT'), socket));
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    svc,
    config,
    close: () =>
      (closing ??= (async () => {
        await drain(server);
        await svc.close();
      })()),
  };
}

/** How long a shutdown waits for requests in flight to be answered before it closes their connections. */
const SHUTDOWN_DRAIN_MS = 25_000;

/**
 * Stops taking connections and lets the requests in flight finish (an execution that ran is
 * answered, not recorded and billed behind a reset socket): idle keep-alive connections close at
 * once and the others as soon as their response is out; any still busy after SHUTDOWN_DRAIN_MS
 * (past the default action deadline of 10 s; an action still running is later recorded as
 * `interrupted` by the execution recovery) are closed then.
 */
function drain(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_DRAIN_MS);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

const REFUSALS: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'The request was not received in time.',
  HPE_HEADER_OVERFLOW: 'The request line and headers exceed the size limit.',
  MISSING_HOST: 'An HTTP/1.1 request must carry a Host header.',
  CONNECT: 'CONNECT is not served: this is an HTTP API, not a proxy.',
};

const httpError = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });

/**
 * Requests Node's parser refuses before any handler sees them (unknown method, a request line or
 * headers over the size limit, NUL or invalid bytes, Content-Length with Transfer-Encoding, a
 * request not received in time), and those refused here before the handler (no Host, CONNECT): answered 400 in the API's error format with an
 * X-Request-Id, then the connection closes. The public pool of the socket's address is reported
 * unless TRUST_PROXY is set (then the client is unknown: no headers could be parsed).
 */
async function refuseUnparsable(svc: Services, err: NodeJS.ErrnoException, socket: Duplex): Promise<void> {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const requestId = resolveRequestId(undefined);
  const message = REFUSALS[err.code ?? ''] ?? 'The request is not valid HTTP/1.1.';
  const payload = JSON.stringify(errorBody(invalidRequest(message), requestId));
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(payload)),
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
    Connection: 'close',
  };
  const address = (socket as Socket).remoteAddress;
  if (!svc.config.trustProxy && address) {
    try {
      Object.assign(headers, rateLimitHeaders(await consumePublicRequest(svc, address, true)));
    } catch {
      /* the limiter is unreachable: the refusal goes out without its pool */
    }
  }
  if (!socket.writable) return void socket.destroy();
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 400 Bad Request\r\n${head}\r\n${payload}`);
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServices } from '../../app';
import { checkLiveness, markDraining, startingReadiness } from '../../health/probes';
import { loadConfig, type Config } from '../../config';
import type { Services } from '../../services';
import { consumePublicRequest, rateLimitHeaders } from '../../metering/requests';
import { AppError, errorBody, invalidRequest } from '../errors';
import { createRequestHandler, type NodeHandler } from './handler';
import { resolveRequestId } from './request';
import { sendError, sendJson } from './respond';
import { securityHeaders } from './security-headers';

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
  // The port is taken before the database opens: a second start on a busy port stops there. Until
  // the services are built, requests are answered here (live 200, anything else 503).
  const state: { svc?: Services; handler?: NodeHandler; draining?: boolean } = {};
  const inFlight = new Set<ServerResponse>();
  // Node's own refusal of an HTTP/1.1 request without Host is a bare 400; ours has the error format.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    const { svc, handler } = state;
    if (!svc || !handler) return answerWhileStarting(config, req, res);
    if (state.draining) {
      res.setHeader('Connection', 'close');
      if (!isHealthPath(req.url)) return refuse(config, req, res, 'The service is shutting down; retry on another instance.');
    }
    if (req.headers.host === undefined && req.httpVersion === '1.1')
      return void refuseUnparsable(svc, httpError('MISSING_HOST'), req.socket);
    return handler(req, res);
  });
  // Every open connection, for the shutdown: one a client opened and never sent a request on (a
  // browser's or a pool's spare) is closed at once, as Node closes idle keep-alive ones.
  const connections = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  server.on(
    'clientError',
    (err: NodeJS.ErrnoException, socket: Duplex) => void (state.svc ? refuseUnparsable(state.svc, err, socket) : socket.destroy()),
  );
  // Without a listener Node closes a CONNECT's socket unanswered.
  server.on(
    'connect',
    (_req, socket: Duplex) => void (state.svc ? refuseUnparsable(state.svc, httpError('CONNECT'), socket) : socket.destroy()),
  );
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // A request (headers and body) not received in two minutes loses its connection; a body that
  // stalls is answered after BODY_TIMEOUT_MS already (src/server/http/request.ts); this closes the socket of
  // a client that keeps trickling one. Node's default is five minutes.
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, resolve);
  });
  let services: Awaited<ReturnType<typeof createServices>>;
  try {
    services = await createServices(config, { pgliteTemplate: options.pgliteTemplate });
  } catch (err) {
    server.close();
    server.closeAllConnections();
    throw err;
  }
  state.handler = createRequestHandler(services, options.next);
  state.svc = services;
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    svc: services,
    config,
    close: () =>
      (closing ??= (async () => {
        state.draining = true;
        markDraining(services);
        await drain(server, inFlight, connections);
        await services.close();
      })()),
  };
}

const isHealthPath = (url: string | undefined) => /^\/api\/v1\/health(\/|\?|$)/.test(url ?? '');

/** Before the services exist: the probes answer (live 200, ready 503 `starting`), every other request 503 `unavailable`. */
function answerWhileStarting(config: Config, req: IncomingMessage, res: ServerResponse): void {
  const probe = req.method === 'GET' ? (req.url ?? '').split('?')[0] : undefined;
  const headers = {
    ...securityHeaders(config).api,
    'Cache-Control': 'no-store',
    'X-Request-Id': resolveRequestId(req.headers['x-request-id']),
  };
  if (probe === '/api/v1/health/live') return sendJson(res, 200, checkLiveness(), headers);
  if (probe === '/api/v1/health/ready') return sendJson(res, 503, startingReadiness(), { ...headers, 'Retry-After': '1' });
  refuse(config, req, res, 'The service is starting; retry shortly.');
}

function refuse(config: Config, req: IncomingMessage, res: ServerResponse, message: string): void {
  const requestId = resolveRequestId(req.headers['x-request-id']);
  sendError(
    res,
    new AppError('unavailable', message),
    requestId,
    {
      ...securityHeaders(config).api,
      'Cache-Control': 'no-store',
      'X-Request-Id': requestId,
      'Retry-After': '1',
    },
    config.publicBaseUrl,
  );
}

/** How long a shutdown waits for requests in flight to be answered before it closes their connections. */
const SHUTDOWN_DRAIN_MS = 25_000;

/**
 * Lets the requests in flight finish (an execution that ran is answered, not recorded and billed
 * behind a reset socket), then stops taking connections. Until they are answered the port stays
 * open so that load balancers' probes see ready turn 503 (live stays 200); any other new request is
 * refused 503 `unavailable` and its connection closed. Then idle keep-alive connections (and those
 * no request was ever sent on) close at once and the others as soon as their response is out; any still busy after SHUTDOWN_DRAIN_MS
 * (past the default action deadline of 10 s; an action still running is later recorded as
 * `interrupted` by the execution recovery) are closed then.
 */
async function drain(server: Server, inFlight: Set<ServerResponse>, connections: Set<Socket>): Promise<void> {
  const deadline = Date.now() + SHUTDOWN_DRAIN_MS;
  await answered([...inFlight], SHUTDOWN_DRAIN_MS);
  const closeIdle = () => {
    server.closeIdleConnections();
    // Node leaves a connection that never received a byte open until its headers time out.
    for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
  };
  await new Promise<void>((resolve) => {
    const idle = setInterval(closeIdle, 50);
    const force = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()));
    server.close(() => {
      clearInterval(idle);
      clearTimeout(force);
      resolve();
    });
    closeIdle();
  });
}

/** Resolves when every one of `responses` is closed, or after `ms`. */
function answered(responses: ServerResponse[], ms: number): Promise<void> {
  if (responses.length === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    let left = responses.length;
    const done = () => {
      if (--left > 0) return;
      clearTimeout(timer);
      resolve();
    };
    for (const res of responses) {
      if (res.closed) done();
      else res.once('close', done);
    }
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
  const payload = JSON.stringify(errorBody(invalidRequest(message), requestId, svc.config.publicBaseUrl));
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(payload)),
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
    ...securityHeaders(svc.config).api,
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

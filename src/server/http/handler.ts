import type { IncomingMessage, ServerResponse } from 'node:http';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { agentCard } from '../a2a/agent-card';
import { llmsTxt } from '../../discovery/llms';
import { ERROR_DOCS_PATH } from '../../contract/error-docs';
import { TRPC_BATCH_MAX_CALLS } from '../../contract/limits';
import type { Services } from '../../services';
import { AppError, toAppError } from '../errors';
import { handleA2a } from '../a2a/handler';
import { handleMcp } from '../mcp/handler';
import { handleIdentity } from '../identity/handler';
import { handleOAuthRoute, isOAuthPath } from '../oauth/routes';
import { buildAdminOpenApiDocument, buildOpenApiDocument } from '../openapi';
import { ADMIN_OPENAPI_PATH } from './openapi';
import { AUTH_OPENAPI_PATH, buildAuthOpenApiDocument } from './openapi-auth';
import { DEFINITION_SCHEMA_PATH, definitionSchema } from './definition-schema';
import { errorReferenceHtml } from './error-reference';
import { staticDocument, type StaticDocument } from './static-document';
import { reportedPool } from '../admission';
import { CLIENT_IP_HEADER, crossSiteRefusal, forwardedClientIp, isSameOrigin, sessionHeaders } from '../session';
import { appRouter } from '../router';
import { requestScope, withRequestScope } from '../../audit/request';
import type { Context } from '../context';
import { clientIp, resolveRequestId } from './request';
import { sendError, sendText } from './respond';
import { handleMetrics, METRICS_PATH, observeRequest } from './metrics';
import { handleRestCall } from './rest';
import { EVENT_STREAM_PATH, handleEventStream } from './event-stream';
import { apiHeadersFor, securityHeaders, setHeaders } from './security-headers';
import { RouteTable } from './routes';
import { parseTarget, rawPathname, searchParamsOf } from './target';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/**
 * Paths the API answers itself: all of `/api/` except next-auth's `/api/auth/`, plus discovery
 * and the identity provider; everything else belongs to Next (pages, assets, next-auth).
 */
const API_PREFIXES = ['/api/', '/.well-known/', '/auth/v1/'];
const API_EXACT = new Set([
  '/api/v1',
  '/api/a2a',
  '/api/openapi.json',
  '/openapi.json',
  AUTH_OPENAPI_PATH,
  ADMIN_OPENAPI_PATH,
  '/api/llms.txt',
]);

export function isApiPath(pathname: string): boolean {
  if (pathname === '/api/auth' || pathname.startsWith('/api/auth/')) return false;
  return pathname === '/api' || API_EXACT.has(pathname) || API_PREFIXES.some((p) => pathname.startsWith(p)) || isOAuthPath(pathname);
}

/** API paths without parameters outside the route table: logged as they are. */
const FIXED_PATHS = new Set([
  '/api/openapi.json',
  '/openapi.json',
  AUTH_OPENAPI_PATH,
  ADMIN_OPENAPI_PATH,
  DEFINITION_SCHEMA_PATH,
  '/api/llms.txt',
  '/.well-known/agent.json',
  '/.well-known/agent-card.json',
  '/api/mcp',
  '/api/a2a',
  EVENT_STREAM_PATH,
]);

const EXPOSED =
  'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Execution-Remaining, Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed';
const CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSED };

function requestContext(svc: Services, req: IncomingMessage, requestId: string): Context {
  const ip = forwardedClientIp(req.headers) ?? clientIp(req, svc.config.trustProxy);
  const scope = requestScope();
  if (scope) {
    scope.requestId = requestId;
    scope.ip = ip;
    scope.userAgent = req.headers['user-agent'];
  }
  return { svc, requestId, ip, headers: req.headers, res: { headers: {} } };
}

/** Responses no procedure answers report the caller's pool (tenant or client IP) without consuming it. */
async function withPool(base: Record<string, string>, ctx: Context): Promise<Record<string, string>> {
  return { ...base, ...(await reportedPool(ctx)) };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The API surface of server.ts: request ids, CORS, discovery documents, the dashboard's
 * /api/trpc and the REST adapter; other paths go to `next` (or 404 when Next is not mounted).
 */
export function createRequestHandler(svc: Services, next?: NodeHandler): NodeHandler {
  const routes = new RouteTable(appRouter);
  const security = securityHeaders(svc.config);
  const baseUrl = svc.config.publicBaseUrl;
  const openapi = staticDocument(() => buildOpenApiDocument(baseUrl), JSON_TYPE);
  const errorReference = staticDocument(errorReferenceHtml, 'text/html; charset=utf-8');
  /** The documents served as they were built (GET or HEAD), by path. */
  const documents = new Map<string, StaticDocument>([
    ['/api/openapi.json', openapi],
    ['/openapi.json', openapi],
    [AUTH_OPENAPI_PATH, staticDocument(() => buildAuthOpenApiDocument(baseUrl), JSON_TYPE)],
    [ADMIN_OPENAPI_PATH, staticDocument(() => buildAdminOpenApiDocument(baseUrl), JSON_TYPE)],
    [
      DEFINITION_SCHEMA_PATH,
      staticDocument(
        () => definitionSchema(JSON.parse(openapi.body().toString('utf8')), `${baseUrl}${DEFINITION_SCHEMA_PATH}`),
        'application/schema+json; charset=utf-8',
      ),
    ],
  ]);

  const serve: NodeHandler = async (req, res) => {
    const requestId = resolveRequestId(req.headers['x-request-id']);
    const started = performance.now();
    const target = req.url ?? '/';
    const pathname = rawPathname(target);
    if (pathname === METRICS_PATH) {
      setHeaders(res, security.api);
      return handleMetrics(svc, req, res, requestId);
    }
    // A REST route's answer carries X-Request-Id in the one header object it is written with: with
    // no header set before, node:http takes that object as it is (setHeader on each of its fields
    // cost 3-6% of a read's CPU). Other paths set it up front, because some of their answers are
    // written by code that takes no headers of ours (Next, the MCP SDK's transport).
    const match = pathname.startsWith('/api/v1/') ? routes.match(req.method ?? 'GET', pathname) : undefined;
    const restCall = match && 'route' in match ? match : undefined;
    if (!restCall) res.setHeader('X-Request-Id', requestId);
    const api = isApiPath(pathname) || isApiPath(parseTarget(target).pathname);
    // A REST answer carries them in its one header object (base, below).
    if (!restCall) setHeaders(res, api || !next ? apiHeadersFor(security, pathname) : security.page);
    if (!api) {
      if (next) {
        // The client as this server sees it, for the dashboard's own calls to the API (overwrites any sent).
        req.headers[CLIENT_IP_HEADER] = clientIp(req, svc.config.trustProxy);
        return next(req, res);
      }
      // The API alone (no dashboard): errors' doc_url still leads to their reference.
      if (pathname === ERROR_DOCS_PATH && (req.method === 'GET' || req.method === 'HEAD'))
        return errorReference.send(req, res, await withPool({ ...CORS }, requestContext(svc, req, requestId)));
      // Otherwise still a response of this service, with the caller's pool.
      return sendError(
        res,
        new AppError('not_found', 'No such endpoint.'),
        requestId,
        await withPool({ ...CORS, 'Cache-Control': 'no-store' }, requestContext(svc, req, requestId)),
        svc.config.publicBaseUrl,
      );
    }
    const base: Record<string, string> = restCall
      ? { ...CORS, ...security.api, 'Cache-Control': 'no-store', 'X-Request-Id': requestId }
      : { ...CORS, 'Cache-Control': 'no-store' };
    const ctx = requestContext(svc, req, requestId);
    const access: AccessLog = { template: null };
    // Counted under its route template (GET /metrics); no access line built when the level leaves them out (e.g. LOG_LEVEL=warn).
    const logs = svc.logger.isLevelEnabled('info');
    res.once('finish', () => {
      observeRequest(svc, req, res, access.template, started, requestId);
      if (logs) logAccess(svc, req, res, ctx, access, started);
    });
    if (FIXED_PATHS.has(pathname)) access.template = pathname;
    try {
      // The OAuth authorization server and the MCP resource's metadata (their own CORS and error format).
      if (isOAuthPath(pathname)) {
        // The caller's pool, reported without consuming (every API response carries it, discovery documents included).
        for (const [name, value] of Object.entries(await reportedPool(ctx))) res.setHeader(name, value);
        if (await handleOAuthRoute(svc, req, res, pathname, requestId, ctx.ip)) return;
      }
      // The built-in identity provider (GoTrue subset): its own apikey check, CORS and error fields.
      if (pathname.startsWith('/auth/v1/')) return await handleIdentity(req, res, ctx, base, parseTarget(target), pathname);
      if (req.method === 'OPTIONS') return preflight(res, await withPool(base, ctx));

      const document = documents.get(pathname);
      if (document) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(res, svc, requestId, ['GET'], await withPool(base, ctx));
        return document.send(req, res, await withPool(base, ctx));
      }
      if (pathname === '/api/llms.txt' || pathname === '/.well-known/agent.json' || pathname === '/.well-known/agent-card.json') {
        if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(res, svc, requestId, ['GET'], await withPool(base, ctx));
        if (pathname === '/api/llms.txt')
          return sendText(res, 200, await llmsTxt(svc), 'text/plain; charset=utf-8', await withPool(base, ctx));
        return sendText(res, 200, await agentCard(svc), JSON_TYPE, await withPool(base, ctx));
      }
      if (pathname.startsWith('/api/trpc/')) {
        access.template = '/api/trpc/{procedure}';
        // The dashboard: a call without its own credential is authenticated by the session cookie,
        // and a state-changing one must then come from our own origin (CSRF; src/server/session.ts).
        const fromSession = await sessionHeaders(req.headers, svc.config);
        if (fromSession) {
          ctx.headers = fromSession;
          if (req.method !== 'GET' && req.method !== 'HEAD' && !isSameOrigin(req, svc.config)) {
            return sendError(res, crossSiteRefusal(), requestId, { ...base, ...(await reportedPool(ctx)) }, svc.config.publicBaseUrl);
          }
        }
        // Any JSON content type or none, as on REST: tRPC's JSON reader takes every body (so a
        // PUT is tRPC's 405, not a content-type refusal raised before the context exists).
        if (req.method !== 'GET' && req.method !== 'HEAD') req.headers['content-type'] = 'application/json';
        const trpcPath = pathname.slice('/api/trpc/'.length);
        // A procedure path that does not even decode names no procedure (tRPC would refuse it
        // before the context exists, without the request id).
        if (!decodes(trpcPath))
          return sendError(
            res,
            new AppError('not_found', 'No such procedure.'),
            requestId,
            { ...base, ...(await reportedPool(ctx)) },
            svc.config.publicBaseUrl,
          );
        // Each call of a batch is metered, but one HTTP request may not carry an unbounded number of them.
        if (searchParamsOf(target).get('batch') === '1' && trpcPath.split(',').length > TRPC_BATCH_MAX_CALLS) {
          const err = new AppError(
            'invalid_request',
            `A tRPC batch carries at most ${TRPC_BATCH_MAX_CALLS} calls; set the client's maxItems.`,
          );
          return sendError(res, err, requestId, { ...base, ...(await reportedPool(ctx)) }, svc.config.publicBaseUrl);
        }
        // What tRPC refuses before any procedure runs (unknown procedure, wrong method) reports the caller's pool too.
        const early = refusedBeforeProcedures(req.method, trpcPath) ? await reportedPool(ctx) : {};
        return nodeHTTPRequestHandler({
          router: appRouter,
          req,
          res,
          path: trpcPath,
          createContext: () => ctx,
          responseMeta: ({ errors }) => {
            // The status of the first error, mapped as its body is (toAppError, as on REST).
            const app = errors[0] && toAppError(errors[0]);
            return app
              ? { status: app.status, headers: new Headers({ ...base, ...early, ...ctx.res.headers, ...app.headers }) }
              : { headers: new Headers({ ...base, ...early, ...ctx.res.headers }) };
          },
          onError: ({ error }) => {
            if (toAppError(error).code === 'internal_error') svc.logger.error({ err: error, requestId }, 'trpc error');
          },
        });
      }

      if (pathname === '/api/mcp') return await handleMcp(req, res, ctx, base);
      if (pathname === '/api/a2a') return await handleA2a(req, res, ctx, base);
      // Server-Sent Events: a long-lived answer no procedure can give (admitted as every tenant operation).
      if (pathname === EVENT_STREAM_PATH) return await handleEventStream(req, res, target, ctx, base);

      if (restCall) {
        access.template = restCall.route.template;
        return await handleRestCall(req, res, target, restCall.route, restCall.params, ctx, base);
      }
      // Every route lies under /api/v1/ (matched above); a known path with another method is a 405.
      if (match && 'allowed' in match) return methodNotAllowed(res, svc, requestId, match.allowed, await withPool(base, ctx));
      return sendError(
        res,
        new AppError('not_found', `No endpoint at ${pathname}.`),
        requestId,
        await withPool(base, ctx),
        svc.config.publicBaseUrl,
      );
    } catch (err) {
      svc.logger.error({ err, requestId }, 'request failed');
      if (res.headersSent) return void res.destroy();
      const pool = await reportedPool(ctx).catch(() => ({}));
      sendError(res, new AppError('internal_error'), requestId, { ...base, ...pool }, svc.config.publicBaseUrl);
    }
  };
  // Each request in a scope of its own, which the audit log reads (src/audit/request.ts).
  return (req, res) => withRequestScope(() => serve(req, res));
}

const trpcProcedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } } | undefined>;

/** Whether a procedure path survives percent-decoding (tRPC decodes it before the context exists). */
function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether tRPC answers without running a procedure: an unknown one, or a query not sent by GET / a mutation not by POST. */
function refusedBeforeProcedures(method: string | undefined, paths: string): boolean {
  if (method !== 'GET' && method !== 'POST') return true;
  return paths.split(',').some((p) => {
    const procedure = Object.hasOwn(trpcProcedures, p) ? trpcProcedures[p] : undefined;
    return !procedure || (procedure._def.type === 'query') !== (method === 'GET');
  });
}

function preflight(res: ServerResponse, base: Record<string, string>) {
  res.writeHead(204, {
    ...base,
    'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
    'Access-Control-Allow-Headers':
      'Content-Type, X-Api-Key, Authorization, X-Tenant-Id, X-Request-Id, Idempotency-Key, A2A-Version, A2A-Extensions',
    'Access-Control-Max-Age': '86400',
  });
  res.end();
}

function methodNotAllowed(res: ServerResponse, svc: Services, requestId: string, allowed: string[], base: Record<string, string>) {
  const allow = [...new Set([...allowed, 'OPTIONS'])].join(', ');
  const err = new AppError('method_not_allowed', `Use ${allowed.join(' or ')} on this path.`, { allowed_methods: allowed });
  sendError(res, err, requestId, { ...base, Allow: allow }, svc.config.publicBaseUrl);
}

interface AccessLog {
  /** The route's path template (never the raw path, which may carry anything), or null. */
  template: string | null;
}

/** One structured line per API request, at `info`: no secrets (no headers, bodies or query). */
function logAccess(svc: Services, req: IncomingMessage, res: ServerResponse, ctx: Context, access: AccessLog, started: number): void {
  svc.logger.info(
    {
      method: req.method,
      path: access.template,
      status: res.statusCode,
      latency_ms: Math.round((performance.now() - started) * 10) / 10,
      request_id: ctx.requestId,
      tenant_id: ctx.res.tenantId ?? null,
    },
    'request',
  );
}

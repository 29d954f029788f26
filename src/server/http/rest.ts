import type { IncomingMessage, ServerResponse } from 'node:http';
import { callTRPCProcedure } from '@trpc/server';
import { AppError, invalidRequest, toAppError } from '../errors';
import { appRouter } from '../router';
import type { Context } from '../context';
import { readJsonBody } from './request';
import { sendError, sendFile, sendJson, type FileOutput } from './respond';
import type { Route } from './routes';
import { searchParamsOf } from './target';

/**
 * Runs one REST call: assembles the input from path, query and body, calls the route's procedure
 * through tRPC (its whole middleware chain, as /api/trpc runs it), and writes the result or the
 * error in the contract's format.
 */
export async function handleRestCall(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  route: Route,
  params: Record<string, string>,
  ctx: Context,
  baseHeaders: Record<string, string>,
): Promise<void> {
  // A body is read on every method: one that is present and unusable (not JSON, over 1 MiB) is
  // refused by the procedure chain after authentication (ctx.bodyError), never taken for `{}`.
  const body = await readJsonBody(req);
  if (body.kind === 'too_large') ctx.bodyError = new AppError('payload_too_large', 'The request body exceeds 1 MiB.');
  if (body.kind === 'invalid') ctx.bodyError = invalidRequest(body.message, [{ path: '', message: body.message }]);
  let input: unknown;
  if (route.method === 'GET' || route.method === 'DELETE') {
    input = { ...queryObject(searchParamsOf(target)), ...params };
  } else {
    const value = body.kind === 'json' ? body.value : {};
    input = isPlainObject(value) ? { ...value, ...params } : value;
  }
  if (route.headers) baseHeaders = { ...baseHeaders, ...route.headers };
  // The rest of an oversized body is never read: the connection closes after the answer.
  if (body.kind === 'too_large') baseHeaders = { ...baseHeaders, Connection: 'close' };
  // `?format=pdf` (and the like) on a route naming another procedure for that format: that one answers.
  let called = route;
  const format = route.formats && isPlainObject(input) ? input.format : undefined;
  if (typeof format === 'string' && Object.hasOwn(route.formats!, format) && isPlainObject(input)) {
    called = route.formats![format]!;
    const { format: _format, ...rest } = input;
    input = rest;
  }
  try {
    const output = await callTRPCProcedure({
      router: appRouter,
      path: called.procedure,
      type: called.type,
      ctx,
      getRawInput: resolving(input),
      signal: undefined,
      batchIndex: 0,
    });
    const status = ctx.res.status ?? route.meta.successStatus ?? 200;
    if (called.meta.file) return sendFile(res, status, output as FileOutput, { ...baseHeaders, ...ctx.res.headers });
    sendJson(res, status, output, { ...baseHeaders, ...ctx.res.headers });
  } catch (err) {
    const appError = toAppError(err);
    if (appError.code === 'internal_error') {
      ctx.svc.logger.error({ err, requestId: ctx.requestId, route: route.template }, 'unhandled error');
    }
    sendError(res, appError, ctx.requestId, { ...baseHeaders, ...ctx.res.headers }, ctx.svc.config.publicBaseUrl);
  }
}

// Returned, not written inline: under tsx (esbuild's keepNames) a named closure costs a defineProperty per call.
function resolving<T>(value: T): () => Promise<T> {
  return () => Promise.resolve(value);
}

/** Query string to an object; a repeated name becomes an array. */
function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of params) {
    const held = Object.hasOwn(out, key) ? out[key] : undefined;
    if (Array.isArray(held)) held.push(value);
    else if (key === '__proto__') {
      // Defined, not assigned: `__proto__` stays an own (unknown, so refused) parameter instead of a prototype.
      Object.defineProperty(out, key, {
        value: held === undefined ? value : [held, value],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[key] = held === undefined ? value : [held, value];
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * GET /metrics (Prometheus text, docs/operations.md, Metrics) and the per-request observation the
 * request handler makes when an API answer is finished.
 *
 * Access: with METRICS_TOKEN set, `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise) from
 * anywhere; without it, loopback clients only (403 otherwise). A request that came through a
 * proxy (X-Forwarded-For or Forwarded present) is not a loopback request, even when the proxy
 * runs on this machine.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { METRICS_CONTENT_TYPE } from '../../metrics';
import type { Services } from '../../services';
import { tracing } from '../../telemetry/hooks';
import { AppError } from '../errors';
import { sendError, sendText } from './respond';

export const METRICS_PATH = '/metrics';

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

export async function handleMetrics(svc: Services, req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
  const headers = { 'Cache-Control': 'no-store', 'X-Request-Id': requestId };
  const refusal = accessRefusal(svc, req);
  if (refusal) return sendError(res, refusal, requestId, headers, svc.config.publicBaseUrl);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const err = new AppError('method_not_allowed', 'Use GET on this path.', { allowed_methods: ['GET'] });
    return sendError(res, err, requestId, { ...headers, Allow: 'GET, HEAD' }, svc.config.publicBaseUrl);
  }
  sendText(res, 200, await svc.metrics.render(), METRICS_CONTENT_TYPE, headers);
}

function accessRefusal(svc: Services, req: IncomingMessage): AppError | undefined {
  const token = svc.config.metricsToken;
  if (token) {
    const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    if (given !== undefined && sameSecret(given, token)) return undefined;
    return new AppError('unauthorized', 'GET /metrics requires Authorization: Bearer with the METRICS_TOKEN.', undefined, {
      'WWW-Authenticate': 'Bearer realm="metrics"',
    });
  }
  if (isLoopbackRequest(req)) return undefined;
  return new AppError('forbidden', 'Metrics answer loopback clients only; set METRICS_TOKEN to scrape from elsewhere.');
}

/** Compared as SHA-256 digests: equal length, so the comparison takes the same time whatever was sent. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function isLoopbackRequest(req: IncomingMessage): boolean {
  if (req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined) return false;
  return LOOPBACK.test(req.socket.remoteAddress ?? '');
}

/** An API answer finished: counted and timed under its route template (null: route `other`). */
export function observeRequest(
  svc: Services,
  req: IncomingMessage,
  res: ServerResponse,
  route: string | null,
  started: number,
  requestId: string,
) {
  svc.metrics.request(route, req.method, res.statusCode, (performance.now() - started) / 1000);
  tracing.annotate?.(route ?? 'other', req.method, requestId);
}

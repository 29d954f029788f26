import { forEachOpenApiProcedure, type OpenApiMethod } from 'trpc-to-openapi';
import type { AnyRouter, TRPCProcedureType } from '@trpc/server';
import type { Meta } from '../context';
import { deprecationHeaders } from './deprecation';

export interface Route {
  method: OpenApiMethod;
  /** OpenAPI path template, e.g. `/api/v1/keys/{key_id}`. */
  template: string;
  /** tRPC procedure path, e.g. `keys.revoke`. */
  procedure: string;
  type: TRPCProcedureType;
  meta: Meta;
  /** `?format=<name>` answers as another operation's route (meta `formats`). */
  formats?: Record<string, Route>;
  /** Headers every answer of the operation carries: a deprecated one's (meta `deprecation`). */
  headers?: Record<string, string>;
  pattern: RegExp;
  params: string[];
}

export type RouteMatch = { route: Route; params: Record<string, string> } | { allowed: string[] } | null;

/** The REST route table, derived from the routers' `.meta({ openapi })`: one source of truth. */
export class RouteTable {
  private routes: Route[] = [];
  /** Routes without parameters by their path: such a route matches only that exact path. */
  private readonly literal = new Map<string, Route[]>();
  /** Routes with parameters by the number of `/` in their path (a parameter never spans one). */
  private readonly bySlashes = new Map<number, Route[]>();

  constructor(router: AnyRouter) {
    forEachOpenApiProcedure(router._def.procedures as never, ({ path, type, meta }) => {
      const template = meta.openapi.path;
      const params = [...template.matchAll(/\{(.+?)\}/g)].map((m) => m[1]!);
      const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(.+?)\\?\}/g, '([^/]+)');
      this.routes.push({
        method: meta.openapi.method,
        template,
        procedure: path,
        type,
        meta: meta as Meta,
        ...((meta as Meta).deprecation ? { headers: deprecationHeaders((meta as Meta).deprecation!) } : {}),
        pattern: new RegExp(`^${source}$`),
        params,
      });
    });
    // Literal segments beat parameters: `/keys/{id}/rotate` vs `/keys/{id}`, `/modules/search` vs `/modules/{m}`;
    // then more literal text: `/invoices/{id}.pdf` vs `/invoices/{id}`.
    const literal = (r: Route) => r.template.replace(/\{(.+?)\}/g, '').length;
    this.routes.sort((a, b) => a.params.length - b.params.length || literal(b) - literal(a));
    // The candidates for a path, in the order above: a path's literal routes, then the parameter
    // routes with as many segments (matching scanned every route, ~2-3% of a request's CPU).
    const byProcedure = new Map(this.routes.map((r) => [r.procedure, r]));
    for (const route of this.routes) {
      if (route.meta.formats)
        route.formats = Object.fromEntries(
          Object.entries(route.meta.formats).map(([name, procedure]) => [name, byProcedure.get(procedure)!]),
        );
      if (route.params.length === 0) append(this.literal, route.template, route);
      else append(this.bySlashes, slashes(route.template), route);
    }
  }

  /** The route for method + path, or the methods allowed on that path (405), or null (404). */
  match(requestMethod: string, pathname: string): RouteMatch {
    // HEAD is GET without a body (node:http drops the body of a HEAD response itself).
    const method = requestMethod === 'HEAD' ? 'GET' : requestMethod;
    const allowed = new Set<string>();
    const literal = this.literal.get(pathname);
    if (literal) {
      for (const route of literal) {
        if (route.method === method) return { route, params: {} };
        allowed.add(route.method);
      }
    }
    for (const route of this.bySlashes.get(slashes(pathname)) ?? []) {
      const m = route.pattern.exec(pathname);
      if (!m) continue;
      if (route.method !== method) {
        allowed.add(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      try {
        route.params.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1]!)));
      } catch {
        return null;
      }
      return { route, params };
    }
    return allowed.size > 0 ? { allowed: [...allowed] } : null;
  }

  all(): readonly Route[] {
    return this.routes;
  }
}

function slashes(path: string): number {
  let n = 0;
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) n++;
  return n;
}

function append<K>(map: Map<K, Route[]>, key: K, route: Route): void {
  const list = map.get(key);
  if (list) list.push(route);
  else map.set(key, [route]);
}

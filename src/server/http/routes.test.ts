import { describe, expect, it } from 'vitest';
import { appRouter } from '../router';
import { RouteTable, type Route, type RouteMatch } from './routes';

const table = new RouteTable(appRouter);

/** The table's rule stated plainly: the first route in order whose pattern matches, else the methods allowed there. */
function scanAll(routes: readonly Route[], requestMethod: string, pathname: string): RouteMatch {
  const method = requestMethod === 'HEAD' ? 'GET' : requestMethod;
  const allowed = new Set<string>();
  for (const route of routes) {
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

describe('the REST route table', () => {
  it('matches every path as a scan of every route in order would', () => {
    const values = ['x', 'search', 'rotate', 'crypto', '%E2%9C%93', '%ZZ', 'a.pdf', 'me'];
    const paths = new Set<string>(['/', '/api', '/api/v1', '/api/v1/', '/api/v1/nope', '/api/v1/modules/', '//api/v1/modules']);
    for (const route of table.all()) {
      paths.add(route.template);
      for (const value of values) paths.add(route.template.replace(/\{(.+?)\}/g, value));
      paths.add(`${route.template.replace(/\{(.+?)\}/g, 'v')}/extra`);
      paths.add(route.template.replace(/\{(.+?)\}/g, 'v').toUpperCase());
    }
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    let routed = 0;
    for (const path of paths) {
      for (const method of methods) {
        const expected = scanAll(table.all(), method, path);
        expect(table.match(method, path), `${method} ${path}`).toEqual(expected);
        if (expected && 'route' in expected) routed++;
      }
    }
    expect(routed).toBeGreaterThan(table.all().length);
  });
});

import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Meta } from '../context';
import { deprecationHeaders } from './deprecation';
import { RouteTable } from './routes';

describe('deprecated operations', () => {
  it('answer Deprecation (RFC 9745), Sunset (RFC 8594) and the Link to the explanation', () => {
    expect(deprecationHeaders({ since: '2027-01-15', sunset: '2027-07-31', link: 'https://amp.example.com/docs/changelog#0.4.0' })).toEqual(
      {
        Deprecation: '@1799971200',
        Sunset: 'Sat, 31 Jul 2027 00:00:00 GMT',
        Link: '<https://amp.example.com/docs/changelog#0.4.0>; rel="deprecation", <https://amp.example.com/docs/changelog#0.4.0>; rel="sunset"',
      },
    );
    expect(deprecationHeaders({ since: '2027-01-15' })).toEqual({ Deprecation: '@1799971200' });
  });

  it('refuse a sunset less than six months away, and dates that are not ISO 8601', () => {
    expect(() => deprecationHeaders({ since: '2027-01-15', sunset: '2027-03-01' })).toThrow(/six months/);
    expect(() => deprecationHeaders({ since: 'January 15th' })).toThrow(/ISO 8601/);
    expect(() => deprecationHeaders({ since: '2027-01-15', link: 'not a url' })).toThrow();
  });

  it('carry their headers in the route table, which the REST adapter adds to every answer', () => {
    const t = initTRPC.meta<Meta>().create();
    const router = t.router({
      old: t.procedure
        .meta({ openapi: { method: 'GET', path: '/api/v1/old' }, deprecation: { since: '2027-01-15', sunset: '2027-12-31' } })
        .input(z.object({}))
        .output(z.object({}))
        .query(() => ({})),
      current: t.procedure
        .meta({ openapi: { method: 'GET', path: '/api/v1/current' } })
        .input(z.object({}))
        .output(z.object({}))
        .query(() => ({})),
    });
    const table = new RouteTable(router);
    const [old, current] = ['/api/v1/old', '/api/v1/current'].map((path) => {
      const match = table.match('GET', path);
      return match && 'route' in match ? match.route : undefined;
    });
    expect(old?.headers).toEqual({ Deprecation: '@1799971200', Sunset: 'Fri, 31 Dec 2027 00:00:00 GMT' });
    expect(current?.headers).toBeUndefined();
  });
});

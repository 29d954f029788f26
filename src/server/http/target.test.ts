import { describe, expect, it } from 'vitest';
import { parseTarget, searchParamsOf } from './target';

describe('the request target', () => {
  it('reads a query as the URL parser does, for plain targets and every other kind', () => {
    const targets = [
      '/api/v1/modules?limit=1',
      '/api/v1/modules',
      '/api/v1/modules?',
      '/api/v1/modules?limit=1&limit=2&cursor=a%2Bb+c',
      '/api/v1/x?a=%ZZ&b=%41&c=%E2%9C%93',
      '/api/v1/x?q="<>\'`{}|\\^',
      '/api/v1/x?a=1?b=2',
      '/api/v1/x?a=1#frag&b=2',
      '/api/v1/x#?a=1',
      '/api/v1/x?q=caf\u00e9&r=\u2713',
      '/api/v1/x?a=\t1&b=\n2',
      '/api/v1/x? a = 1 ',
      '//evil.example/x?a=1',
      '/\\evil.example/x?a=1',
      'http://other.example/x?a=1',
      '*',
      '/api/v1/x?__proto__=1&constructor=2&a[b]=3&a.b=4&=5&&c',
    ];
    for (const target of targets) {
      expect([...searchParamsOf(target)], target).toEqual([...parseTarget(target).searchParams]);
    }
  });
});

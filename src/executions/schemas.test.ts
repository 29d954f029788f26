import { expect, it } from 'vitest';
import { SchemaCache } from './schemas';
it('linear', () => {
  const c = new SchemaCache();
  const v = c.validator('k', { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } });
  const t = Date.now();
  expect(v({ s: 'a'.repeat(50000) + '!' })).toBe(false);
  expect(v({ s: 'aaa' })).toBe(true);
  expect(Date.now() - t).toBeLessThan(2000);
});

import { beforeAll, describe, expect, it } from 'vitest';
import type { ModuleActionRow, ModuleRow } from '../db/schema';
import { builtinDefinitions } from '../modules/definitions';
import { runsInline } from './engine';

const builtin = (name: string) => ({ name, runtime: { type: 'builtin' } }) as unknown as ModuleRow;
const action = (name: string) => ({ name }) as unknown as ModuleActionRow;

describe('runsInline', () => {
  beforeAll(() => builtinDefinitions());

  it('runs the pure, microsecond actions inline for an input up to 512 characters of JSON', () => {
    expect(runsInline(builtin('crypto'), action('uuid'), {})).toBe(true);
    expect(runsInline(builtin('crypto'), action('hash'), { text: 'x'.repeat(480) })).toBe(true);
    expect(runsInline(builtin('text'), action('slugify'), { text: 'Hello World' })).toBe(true);
    expect(runsInline(builtin('text'), action('change_case'), { text: 'fooBar', to: 'snake' })).toBe(true);
  });

  it('keeps a worker for larger inputs, actions a small input can still make slow, and anything not built in', () => {
    expect(runsInline(builtin('text'), action('slugify'), { text: 'Hello World '.repeat(50) })).toBe(false);
    expect(runsInline(builtin('crypto'), action('random_token'), { length: 1024, count: 100 })).toBe(false);
    expect(runsInline(builtin('crypto'), action('password_hash'), { password: 'pw' })).toBe(false);
    expect(runsInline(builtin('text'), action('replace'), { text: 'aaa', pattern: '(a+)+$', replacement: '' })).toBe(false);
    expect(runsInline(builtin('crypto'), action('uuid'), undefined)).toBe(false);
    const published = { name: 'crypto', runtime: { type: 'javascript' } } as unknown as ModuleRow;
    expect(runsInline(published, action('uuid'), {})).toBe(false);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { definitionsCacheFile, readCachedDefinitions, writeCachedDefinitions } from './definitions-cache';
import { builtinDefinitions } from './definitions';

describe('the built-in definitions cache', () => {
  it('is named by the sources: the same checkout, the same file', () => {
    const file = definitionsCacheFile();
    expect(path.basename(file)).toMatch(/^builtin-definitions-[0-9a-f]{16}\.v8$/);
    expect(definitionsCacheFile()).toBe(file);
  });

  it('holds what the child answered, structured clone and all', async () => {
    const definitions = await builtinDefinitions();
    expect(readCachedDefinitions(definitionsCacheFile())).toEqual(definitions);
  });

  it('a missing or damaged file reads as nothing, and an unwritable place is no error', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-definitions-'));
    try {
      expect(readCachedDefinitions(path.join(dir, 'missing.v8'))).toBeUndefined();
      writeFileSync(path.join(dir, 'damaged.v8'), 'not v8');
      expect(readCachedDefinitions(path.join(dir, 'damaged.v8'))).toBeUndefined();
      expect(() => writeCachedDefinitions(path.join(dir, 'no-such-dir', 'x', 'file.v8'), [1])).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * One version number (docs/versioning.md): the service, the OpenAPI document, the TypeScript SDK
 * and the Python client carry the newest version released in CHANGELOG.md, which keeps the
 * Keep a Changelog layout.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/server/openapi';
import { VERSION } from '../src/version';

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
const changelog = read('CHANGELOG.md');
const headings = [...changelog.matchAll(/^## \[(.+?)\](?: - (.+))?$/gm)].map((m) => ({ version: m[1]!, date: m[2] }));
const released = headings.filter((h) => h.version !== 'Unreleased');
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

describe('versions', () => {
  it('CHANGELOG.md: [Unreleased] first, then released versions newest first, each with its date', () => {
    expect(headings[0]?.version).toBe('Unreleased');
    expect(released.length).toBeGreaterThan(0);
    for (const h of released) {
      expect(h.version).toMatch(SEMVER);
      expect(h.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    const order = released.map((h) => h.version.split(/[.-]/).slice(0, 3).map(Number));
    for (let i = 1; i < order.length; i++) {
      const [a, b] = [order[i - 1]!, order[i]!];
      expect(a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!, `${released[i - 1]!.version} after ${released[i]!.version}`).toBeGreaterThan(
        0,
      );
    }
    // Only Keep a Changelog's kinds of change.
    for (const [, kind] of changelog.matchAll(/^### (.+)$/gm))
      expect(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']).toContain(kind);
  });

  it('the service, the OpenAPI document and both SDKs carry the newest released version', () => {
    const newest = released[0]!.version;
    expect(VERSION).toBe(newest);
    expect(JSON.parse(read('package.json')).version).toBe(newest);
    expect(JSON.parse(read('packages/sdk/package.json')).version).toBe(newest);
    expect(read('packages/python/pyproject.toml')).toMatch(new RegExp(`^version = "${newest.replace(/\./g, '\\.')}"$`, 'm'));
    expect(read('packages/python/amp_client/_http.py')).toMatch(new RegExp(`^SDK_VERSION = "${newest.replace(/\./g, '\\.')}"$`, 'm'));
    expect(buildOpenApiDocument('http://localhost:3000').info.version).toBe(newest);
  });
});

/**
 * The generated OpenAPI document passes the ecosystem's linters: Redocly CLI (recommended
 * ruleset) and Spectral (`spectral:oas`), 0 errors and 0 warnings. The rules switched off are in
 * the committed redocly.yaml and .spectral.yaml, each with its reason; what they would have
 * checked is asserted here instead, except at the operations those files name.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/server/openapi';

type Json = Record<string, any>;

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
/** A deployment's PUBLIC_BASE_URL (Redocly warns on localhost and example.com servers). */
const PUBLIC_BASE_URL = 'https://agents.amp-platform.test';
/** No network: no telemetry, no update check (the only requests these CLIs would make). */
const OFFLINE_ENV = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  NO_UPDATE_NOTIFIER: '1',
  CI: 'true',
};
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Runs a CLI under this Node (the project's 24); a non-zero exit still yields its output. */
async function cli(name: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin(name), ...args], { cwd, env: OFFLINE_ENV, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const operations = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([p, item]) =>
    Object.entries(item as Json)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => ({ where: `${m.toUpperCase()} ${p}`, op: op as Json })),
  );

describe('OpenAPI document passes Redocly and Spectral', () => {
  let dir: string;
  let file: string;
  let doc: Json;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'amp-openapi-lint-'));
    file = path.join(dir, 'openapi.json');
    doc = buildOpenApiDocument(PUBLIC_BASE_URL) as Json;
    writeFileSync(file, JSON.stringify(doc, null, 2));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('redocly lint --extends recommended: 0 errors, 0 warnings', { timeout: 180_000 }, async () => {
    const out = await cli(
      'redocly',
      ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--extends', 'recommended', '--format', 'json'],
      dir,
    );
    const report = JSON.parse(out.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(out.code).toBe(0);
  });

  it('spectral lint (spectral:oas): 0 errors, 0 warnings', { timeout: 180_000 }, async () => {
    const output = path.join(dir, 'spectral.json');
    const out = await cli(
      'spectral',
      ['lint', file, '--ruleset', path.join(root, '.spectral.yaml'), '--format', 'json', '--output', output, '--fail-severity', 'warn'],
      dir,
    );
    const results = JSON.parse(readFileSync(output, 'utf8')) as { code: string; severity: number; message: string; path: string[] }[];
    // Severity 0 is an error, 1 a warning (2 information, 3 hint).
    const problems = results
      .filter((r) => r.severity <= 1)
      .map((r) => `${r.severity === 0 ? 'error' : 'warning'} ${r.code} ${r.path.join('.')}: ${r.message}`);
    expect(problems).toEqual([]);
    expect(out.code, out.stderr).toBe(0);
  });

  it('the rule switched off in redocly.yaml and .spectral.yaml hold everywhere else', () => {
    const only405 = new Set(['GET /api/mcp', 'DELETE /api/mcp']);
    const discovery = new Set([
      'GET /api/openapi.json',
      'GET /openapi.json',
      'GET /api/llms.txt',
      'GET /.well-known/agent.json',
      'GET /.well-known/agent-card.json',
    ]);
    for (const { where, op } of operations(doc)) {
      const codes = Object.keys(op.responses);
      if (only405.has(where)) expect(codes, where).toContain('405');
      else
        expect(
          codes.some((c) => /^2\d\d$/.test(c)),
          `${where} has a 2xx`,
        ).toBe(true);
      if (!discovery.has(where))
        expect(
          codes.some((c) => /^4\d\d$/.test(c)),
          `${where} has a 4xx`,
        ).toBe(true);
    }
    for (const where of [...only405, ...discovery])
      expect(
        operations(doc).map((o) => o.where),
        where,
      ).toContain(where);
  });

  it('servers come from PUBLIC_BASE_URL', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: PUBLIC_BASE_URL })]);
    const other = buildOpenApiDocument('https://other.example.net') as Json;
    expect(other.servers.map((s: Json) => s.url)).toEqual(['https://other.example.net']);
    expect(JSON.stringify(doc)).not.toContain('localhost');
  });
});

/**
 * Redocly CLI (recommended ruleset) and Spectral (`spectral:oas`) on a generated OpenAPI
 * document, with the committed redocly.yaml and .spectral.yaml: shared by
 * tests/api/openapi-lint.test.ts (the main document) and tests/api/openapi-auth.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';

type Json = Record<string, any>;

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
/** A deployment's PUBLIC_BASE_URL (Redocly warns on localhost and example.com servers). */
export const LINT_BASE_URL = 'https://agents.amp-platform.test';
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

/** Every operation of a document: `METHOD /path` and the operation object. */
export const operations = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([p, item]) =>
    Object.entries(item as Json)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => ({ where: `${m.toUpperCase()} ${p}`, op: op as Json })),
  );

/** `redocly lint --extends recommended` on `file` (run in `dir`): its problems, totals and exit code. */
export async function redoclyLint(file: string, dir: string) {
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
  return { problems, totals: report.totals, code: out.code };
}

/** `spectral lint` with .spectral.yaml on `file` (run in `dir`): its errors and warnings, exit code and stderr. */
export async function spectralLint(file: string, dir: string) {
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
  return { problems, code: out.code, stderr: out.stderr };
}

/**
 * Inside a `describe`: writes the document `build` makes to a scratch file before its tests and
 * registers the two lint tests (Redocly, Spectral: no error, no warning). Answers the document,
 * for the describe's own checks.
 */
export function lintsClean(name: string, build: () => Json): () => Json {
  let dir: string;
  let file: string;
  let doc: Json;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), `amp-${name}-lint-`));
    file = path.join(dir, `${name}.json`);
    doc = build();
    writeFileSync(file, JSON.stringify(doc, null, 2));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('redocly lint --extends recommended: 0 errors, 0 warnings', { timeout: 180_000 }, async () => {
    const out = await redoclyLint(file, dir);
    expect(out.problems).toEqual([]);
    expect(out.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(out.code).toBe(0);
  });

  it('spectral lint (spectral:oas): 0 errors, 0 warnings', { timeout: 180_000 }, async () => {
    const out = await spectralLint(file, dir);
    expect(out.problems).toEqual([]);
    expect(out.code, out.stderr).toBe(0);
  });

  return () => doc;
}

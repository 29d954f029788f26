/**
 * The browser tests run the real dashboard, so they need a Next.js build: `ensureNextBuild()`
 * runs `next build` when `.next/BUILD_ID` is missing or the dashboard's sources have changed
 * since it was built (a hash of their paths and contents, stored beside the build: touching a
 * file, a fresh clone or a branch switch back does not rebuild), and reuses it otherwise. A lock
 * directory keeps concurrent test files (and workers) from building at the same time: the
 * others wait, then find the build fresh.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** NEXT_DIST_DIR (next.config.ts) gives a run its own build directory; `.next` by default. */
const DIST_DIR = process.env.NEXT_DIST_DIR || '.next';
const BUILD_ID = path.join(ROOT, DIST_DIR, 'BUILD_ID');
/** The hash of the sources the build in DIST_DIR was made from. */
const SOURCES_HASH = path.join(ROOT, DIST_DIR, 'amp-sources.sha256');
const LOCK = path.join(ROOT, '.test-data', `next-build${DIST_DIR === '.next' ? '' : `-${path.basename(DIST_DIR)}`}.lock`);
/** A lock older than this was left by a run that died: it is taken over. */
const STALE_LOCK_MS = 15 * 60_000;

/** What the build is made from: pages, components, the browser's glue, the contract, styles and the build's configuration. */
const SOURCES = [
  'app',
  'components',
  'client',
  'src/contract',
  'proxy.ts',
  'next.config.ts',
  'postcss.config.mjs',
  'tsconfig.json',
  'package-lock.json',
];

function hashTree(hash: ReturnType<typeof createHash>, p: string): void {
  const abs = path.join(ROOT, p);
  if (!existsSync(abs)) return;
  if (!statSync(abs).isDirectory()) {
    hash.update(`${p}\0`).update(readFileSync(abs)).update('\0');
    return;
  }
  for (const entry of readdirSync(abs).sort()) hashTree(hash, path.join(p, entry));
}

/** A hash of every source file's path and contents. */
export function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const source of SOURCES) hashTree(hash, source);
  return hash.digest('hex');
}

/** Whether DIST_DIR holds a build made from the sources as they are now. */
export function buildIsFresh(): boolean {
  if (!existsSync(BUILD_ID) || !existsSync(SOURCES_HASH)) return false;
  return readFileSync(SOURCES_HASH, 'utf8').trim() === sourcesHash();
}

function tryLock(): boolean {
  mkdirSync(path.dirname(LOCK), { recursive: true });
  try {
    mkdirSync(LOCK);
    return true;
  } catch {
    if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
}

function runBuild(): Promise<void> {
  const nextBin = createRequire(path.join(ROOT, 'package.json')).resolve('next/dist/bin/next');
  return new Promise((resolve, reject) => {
    // On this same Node (24), as `npm run build` would; production mode whatever the test runner's NODE_ENV.
    const child = spawn(process.execPath, [nextBin, 'build'], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`next build failed (${signal ?? `exit code ${code}`}):\n${output.slice(-4000)}`));
    });
  });
}

export async function ensureNextBuild(): Promise<void> {
  for (;;) {
    if (buildIsFresh()) return;
    if (tryLock()) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  try {
    if (!buildIsFresh()) {
      // Hashed before the build: a source edited while it runs makes the next run build again.
      const hash = sourcesHash();
      await runBuild();
      writeFileSync(SOURCES_HASH, `${hash}\n`);
    }
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

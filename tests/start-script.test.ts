/**
 * `npm start` (scripts/start.mjs, through scripts/supervise.mjs) stops server.ts when it is told to
 * stop, or when its own parent goes away, and exits the way server.ts did: server.ts is never left
 * running re-parented to init. The supervisor's rules run against a tiny child (fast); one test
 * runs the real start script with server.ts (AMP_NO_NEXT=1: the API without Next, no build).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const supervisor = path.join(root, 'scripts', 'supervise.mjs');
const dirs: string[] = [];
const started: number[] = [];

afterAll(() => {
  // Nothing this file started may outlive it, whatever a failed assertion left behind.
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A child that reports each signal it gets, and exits 0 a little after SIGTERM/SIGINT/SIGHUP. */
const CHILD = `
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => {
  console.log('child got ' + s);
  setTimeout(() => process.exit(0), 300);
});
console.log('child ready ' + process.pid);
setInterval(() => {}, 1000);
`;

/** `node -e` source of a process that supervises `node -e <child>` and exits like it. */
function supervising(child: string): string[] {
  const code = `import { exitLike, supervise } from ${JSON.stringify(supervisor)};
exitLike(await supervise(process.execPath, ['-e', ${JSON.stringify(child)}]));`;
  return ['--input-type=module', '-e', code];
}

interface Watched {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitFor(text: string): Promise<void>;
}

function watch(proc: ChildProcess): Watched {
  started.push(proc.pid!);
  let seen = '';
  const waiters: (() => void)[] = [];
  proc.stdout!.on('data', (chunk: Buffer) => {
    seen += chunk.toString();
    for (const w of waiters) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    proc,
    output: () => seen,
    exited,
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        const check = () => seen.includes(text) && resolve();
        waiters.push(check);
        check();
        void exited.then(({ code, signal }) => reject(new Error(`exited (${signal ?? code}) before "${text}":\n${seen}`)));
      }),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntilGone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((r) => setTimeout(r, 100));
}

/** The pid the tiny child printed when it was ready. */
function childPid(w: Watched): number {
  const pid = Number(/child ready (\d+)/.exec(w.output())?.[1]);
  started.push(pid);
  return pid;
}

describe('scripts/supervise.mjs', () => {
  const pipe = { stdio: ['ignore', 'pipe', 'inherit'] as ('ignore' | 'pipe' | 'inherit')[] };

  it('forwards SIGTERM to the child and exits with its code', async () => {
    const w = watch(spawn(process.execPath, supervising(CHILD), pipe));
    await w.waitFor('child ready');
    const child = childPid(w);
    w.proc.kill('SIGTERM');
    expect(await w.exited).toEqual({ code: 0, signal: null });
    expect(w.output()).toContain('child got SIGTERM');
    expect(alive(child)).toBe(false);
  });

  it('forwards a repeated signal once (Ctrl-C reaches the group and npm forwards it again)', async () => {
    const w = watch(spawn(process.execPath, supervising(CHILD), pipe));
    await w.waitFor('child ready');
    w.proc.kill('SIGINT');
    await w.waitFor('child got SIGINT');
    w.proc.kill('SIGINT');
    w.proc.kill('SIGHUP');
    await w.exited;
    expect(w.output().match(/child got SIGINT/g)).toHaveLength(1);
    expect(w.output()).toContain('child got SIGHUP');
  });

  it("exits with the child's exit code, or dies of the child's signal", async () => {
    const code = watch(spawn(process.execPath, supervising('process.exit(7)'), pipe));
    expect(await code.exited).toEqual({ code: 7, signal: null });
    const killed = watch(spawn(process.execPath, supervising("process.kill(process.pid, 'SIGKILL')"), pipe));
    expect(await killed.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('stops the child when its own parent dies (a shell that did not exec it, npm killed)', async () => {
    // `sh -c '<cmd>; true'` keeps the shell as the parent, as npm's script shell does.
    const args = supervising(CHILD).map((a) => `'${a.replaceAll("'", `'\\''`)}'`);
    const shell = watch(spawn('sh', ['-c', `'${process.execPath}' ${args.join(' ')}; true`], pipe));
    await shell.waitFor('child ready');
    const child = childPid(shell);
    shell.proc.kill('SIGKILL');
    await waitUntilGone(child);
    expect(shell.output()).toContain('child got SIGTERM');
  });
});

describe('npm start (scripts/start.mjs) with server.ts', () => {
  it('forwards SIGTERM to server.ts, which shuts down, and exits with its code', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-start-'));
    dirs.push(dataDir);
    const env: NodeJS.ProcessEnv = { ...process.env, AMP_NO_NEXT: '1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'test' };
    const w = watch(spawn(process.execPath, ['scripts/start.mjs'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] }));
    await w.waitFor('Agent Module Platform listening');
    // Linux: the start script's children, and the one running server.ts (its build, .amp/build/<hash>/server.mjs).
    const children = readFileSync(`/proc/${w.proc.pid}/task/${w.proc.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    const server = children.find((pid) => /\.amp\/build\/[0-9a-f]+\/server\.mjs/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) ?? 0;
    expect(server).toBeGreaterThan(0);
    started.push(server);

    w.proc.kill('SIGTERM');
    expect(await w.exited).toEqual({ code: 0, signal: null });
    expect(w.output()).toContain('shutting down');
    expect(alive(server)).toBe(false);
  });
});

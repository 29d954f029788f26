import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE, lockDataDir, type DataDirLock } from './data-dir-lock';

const dirs: string[] = [];
const locks: DataDirLock[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const lock of locks.splice(0)) lock.release();
});
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-lock-'));
  dirs.push(dir);
  return dir;
}

function take(dir: string): DataDirLock {
  const lock = lockDataDir(dir);
  locks.push(lock);
  return lock;
}

function writeLock(dir: string, holder: { pid: number; hostname?: string; started_at?: string }): string {
  const file = path.join(dir, LOCK_FILE);
  writeFileSync(file, JSON.stringify({ hostname: hostname(), started_at: new Date().toISOString(), ...holder }));
  return file;
}

/** Another live process on this host (a holder this test controls). */
async function otherProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((r) => child.once('spawn', r));
  return child;
}

const holderPid = (dir: string) => (JSON.parse(readFileSync(path.join(dir, LOCK_FILE), 'utf8')) as { pid: number }).pid;

describe('lockDataDir', () => {
  it('writes pid, host name and start time, and removes the file on release', () => {
    const dir = dataDir();
    const lock = lockDataDir(dir);
    const held = JSON.parse(readFileSync(path.join(dir, LOCK_FILE), 'utf8'));
    expect(held).toEqual({ pid: process.pid, hostname: hostname(), started_at: expect.any(String) });
    expect(Date.parse(held.started_at)).toBeLessThanOrEqual(Date.now());
    lock.release();
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    take(dir).release();
  });

  it('refuses a second lock in the same process', () => {
    const dir = dataDir();
    take(dir);
    expect(() => lockDataDir(dir)).toThrow(`is in use by process ${process.pid}`);
  });

  it('refuses a live holder on this host, naming its pid', async () => {
    const dir = dataDir();
    const other = await otherProcess();
    writeLock(dir, { pid: other.pid! });
    let error: unknown;
    try {
      lockDataDir(dir);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DataDirInUseError);
    expect((error as Error).message).toMatch(
      new RegExp(`^DATA_DIR ${dir} is in use by process ${other.pid} \\(started .+\\); stop it or choose another DATA_DIR$`),
    );
    expect(holderPid(dir)).toBe(other.pid);
  });

  it('takes over the lock of a process that is gone', async () => {
    const dir = dataDir();
    const other = await otherProcess();
    const gone = new Promise((r) => other.once('exit', r));
    other.kill('SIGKILL');
    await gone;
    writeLock(dir, { pid: other.pid! });
    take(dir);
    expect(holderPid(dir)).toBe(process.pid);
  });

  it("takes over a lock whose pid is this process's own (a restart that got the same pid)", () => {
    const dir = dataDir();
    writeLock(dir, { pid: process.pid });
    take(dir);
    expect(holderPid(dir)).toBe(process.pid);
  });

  it.skipIf(process.platform !== 'linux')('takes over a lock whose pid now belongs to a process started after the holder', async () => {
    const dir = dataDir();
    const other = await otherProcess();
    writeLock(dir, { pid: other.pid!, started_at: new Date(Date.now() - 3_600_000).toISOString() });
    take(dir);
    expect(holderPid(dir)).toBe(process.pid);
  });

  it("refuses another host's lock while its holder refreshes it, and takes it over once it stopped", () => {
    const dir = dataDir();
    const file = writeLock(dir, { pid: 1, hostname: 'elsewhere.example' });
    expect(() => lockDataDir(dir)).toThrow('is in use by process 1 on elsewhere.example');
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(file, minuteAgo, minuteAgo);
    take(dir);
    expect(holderPid(dir)).toBe(process.pid);
  });

  it('takes over a lock file it cannot read as a lock', () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, LOCK_FILE), 'not json');
    take(dir);
    expect(holderPid(dir)).toBe(process.pid);
  });

  it('leaves a lock it no longer owns in place on release', () => {
    const dir = dataDir();
    const lock = lockDataDir(dir);
    writeLock(dir, { pid: 424242 });
    lock.release();
    expect(holderPid(dir)).toBe(424242);
  });
});

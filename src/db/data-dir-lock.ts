/**
 * One process per embedded data directory. PGlite opened by two processes at once writes the same
 * files from both, and the database no longer starts afterwards (`RuntimeError: Aborted()`), so
 * the embedded database takes `DATA_DIR/amp.lock` before it opens and gives it back when it closes.
 *
 * The lock file holds the holder's pid, host name and start time. It is created whole (written to a
 * private file, then hard-linked to its name, which fails if the name exists) so nobody reads a
 * half-written lock. A lock left behind by a process that died is taken over: on the same host when
 * its pid is gone, or is this process's own (a container restarted with the same pid), or belongs
 * to a process started after the holder (the pid was reused); from another host when the holder
 * stopped refreshing the file's time for LOCK_STALE_MS.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { processExists } from '../lib/process';

export const LOCK_FILE = 'amp.lock';
/** How often a holder refreshes the lock file's time, and when another host may take a lock whose time is older. */
const LOCK_REFRESH_MS = 10_000;
const LOCK_STALE_MS = 30_000;

export interface LockHolder {
  pid: number;
  hostname: string;
  started_at: string;
}

export interface DataDirLock {
  release(): void;
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | undefined,
  ) {
    const who = holder
      ? `process ${holder.pid}${holder.hostname === hostname() ? '' : ` on ${holder.hostname}`} (started ${holder.started_at})`
      : 'another process';
    super(`DATA_DIR ${dataDir} is in use by ${who}; stop it or choose another DATA_DIR`);
    this.name = 'DataDirInUseError';
  }
}

/** Lock files this process holds, with their content: a second open of the same directory in this process is refused too. */
const heldHere = new Map<string, string>();

/** Takes `dataDir`'s lock or throws DataDirInUseError naming the live holder. */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = path.resolve(dataDir, LOCK_FILE);
  const processStart = new Date(Date.now() - process.uptime() * 1000);
  const content = `${JSON.stringify({ pid: process.pid, hostname: hostname(), started_at: processStart.toISOString() })}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createWhole(file, content)) return hold(file, content);
    const found = readLock(file);
    if (found === undefined) continue; // released meanwhile
    if (!isStale(file, found.holder)) throw new DataDirInUseError(dataDir, found.holder);
    takeOver(file, found.text);
  }
  throw new DataDirInUseError(dataDir, readLock(file)?.holder);
}

function createWhole(file: string, content: string): boolean {
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, content, { mode: 0o644 });
  try {
    linkSync(draft, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(draft);
  }
}

function readLock(file: string): { text: string; holder: LockHolder | undefined } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const holder = JSON.parse(text) as LockHolder;
    return { text, holder: Number.isInteger(holder.pid) && typeof holder.hostname === 'string' ? holder : undefined };
  } catch {
    return { text, holder: undefined };
  }
}

function isStale(file: string, holder: LockHolder | undefined): boolean {
  if (heldHere.has(file)) return false;
  if (!holder) return true; // not a lock this code wrote whole
  if (holder.hostname !== hostname()) return Date.now() - statSync(file).mtimeMs > LOCK_STALE_MS;
  if (holder.pid === process.pid) return true;
  if (!processExists(holder.pid)) return true;
  const started = processStartTime(holder.pid);
  // Start times differ by clock rounding (a second at most); a reused pid started after its holder.
  return started !== undefined && started - Date.parse(holder.started_at) > 2_000;
}

/** When a process started (ms since the epoch), from Linux's /proc; undefined elsewhere. */
function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime, in clock ticks since boot) counted after the parenthesised command name.
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    const ticksPerSecond = 100; // USER_HZ, 100 on every Linux architecture Node runs on
    return Number.isFinite(startTicks) && bootSeconds > 0 ? bootSeconds * 1000 + (startTicks / ticksPerSecond) * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes a stale lock so the next attempt can create its own. The lock is first moved aside
 * (atomic): if what was moved is no longer the stale lock read before (another process took over
 * in between), it is put back and the next attempt finds that process.
 */
function takeOver(file: string, staleText: string): void {
  const aside = `${file}.stale.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    if (readFileSync(aside, 'utf8') !== staleText) linkSync(aside, file);
  } catch {
    /* a third process created the lock meanwhile: the next attempt finds it */
  } finally {
    unlinkSync(aside);
  }
}

function hold(file: string, content: string): DataDirLock {
  if (heldHere.size === 0) process.on('exit', releaseAll);
  heldHere.set(file, content);
  const refresh = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      /* the directory went away: nothing left to protect */
    }
  }, LOCK_REFRESH_MS);
  refresh.unref();
  return {
    release: () => {
      clearInterval(refresh);
      removeLock(file);
      if (heldHere.size === 0) process.off('exit', releaseAll);
    },
  };
}

function removeLock(file: string): void {
  const content = heldHere.get(file);
  if (content === undefined) return;
  heldHere.delete(file);
  try {
    if (readFileSync(file, 'utf8') === content) unlinkSync(file);
  } catch {
    /* already gone */
  }
}

/** A process that exits without closing its database (process.exit after a failed start) leaves no lock behind. */
function releaseAll(): void {
  for (const file of [...heldHere.keys()]) removeLock(file);
}

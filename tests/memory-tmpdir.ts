/**
 * The test run's temporary files on a memory file system, when the machine has one with room.
 * Every embedded test server starts from a copy of the run's PGlite database (41 MB, 1,250 files)
 * and writes its own files after it: on the reference machine one such copy cost 1.2–1.4 s of
 * system time into ext4 and 0.08 s into /dev/shm (docs/testing.md). os.tmpdir() reads TMPDIR, in
 * this process, the workers it starts and their children, so setting it moves every temporary
 * directory of the run. A TMPDIR set by the caller is kept.
 */
import { accessSync, constants, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { processExists } from '../src/lib/process';

const MEMORY_FS = '/dev/shm';
const PREFIX = 'amp-tests-';
/** Room the run may need at its peak (dozens of servers' databases at once), with a margin. */
const ROOM_NEEDED = 4 * 1024 ** 3;

/** Points TMPDIR at a directory of its own on /dev/shm when it can; returns its removal. */
export function useMemoryTmpdir(): () => void {
  if (process.env.TMPDIR) return () => {};
  try {
    accessSync(MEMORY_FS, constants.W_OK);
    const { bavail, bsize } = statfsSync(MEMORY_FS);
    if (bavail * bsize < ROOM_NEEDED) return () => {};
  } catch {
    return () => {};
  }
  removeAbandoned();
  const dir = mkdtempSync(path.join(MEMORY_FS, `${PREFIX}${process.pid}-`));
  process.env.TMPDIR = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    delete process.env.TMPDIR;
  };
}

/** Directories of runs that ended without removing theirs (interrupted): tmpfs holds them in memory. */
function removeAbandoned(): void {
  for (const entry of readdirSync(MEMORY_FS)) {
    const pid = entry.startsWith(PREFIX) ? Number.parseInt(entry.slice(PREFIX.length), 10) : 0;
    if (pid && !processExists(pid)) rmSync(path.join(MEMORY_FS, entry), { recursive: true, force: true });
  }
}

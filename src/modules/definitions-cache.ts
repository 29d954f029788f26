/**
 * The built-in definitions kept on disk between processes: reading them takes a child process
 * that imports every pack (seconds, more on a busy machine), and every start of the service,
 * of a test server and of certification asks for them. The file is named by a digest of what
 * they are made from (the sources under src/, the lock file, Node's version), so a changed
 * checkout reads them again; it is written with v8's serializer, the same structured clone the
 * child's message uses. The image is built with the file in place (Dockerfile). Caching is best
 * effort: a directory that cannot be written only means the child runs at each start.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { hashFiles } from '../lib/hash-files';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE_DIR = path.join(ROOT, '.amp', 'cache');
const PREFIX = 'builtin-definitions-';

/** The cache file for the sources as they are now. */
export function definitionsCacheFile(): string {
  const hash = createHash('sha256').update(process.version).update('\0');
  hashFiles(hash, ROOT, path.join(ROOT, 'src'));
  const lock = path.join(ROOT, 'package-lock.json');
  if (existsSync(lock)) hash.update(readFileSync(lock));
  return path.join(CACHE_DIR, `${PREFIX}${hash.digest('hex').slice(0, 16)}.v8`);
}

export function readCachedDefinitions<T>(file: string): T | undefined {
  try {
    return deserialize(readFileSync(file)) as T;
  } catch {
    return undefined;
  }
}

/** Written to a temporary file and renamed into place (another process may read it meanwhile); older files go. */
export function writeCachedDefinitions(file: string, value: unknown): void {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, serialize(value));
    renameSync(temporary, file);
    for (const entry of readdirSync(CACHE_DIR))
      if (entry.startsWith(PREFIX) && path.join(CACHE_DIR, entry) !== file && !entry.endsWith('.tmp'))
        rmSync(path.join(CACHE_DIR, entry), { force: true });
  } catch {
    /* not writable: the next start reads them again */
  }
}

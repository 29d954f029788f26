import type { Hash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Feeds `hash` with each file under `target` (a file or a directory, walked in name order; test
 * files left out): its path relative to `root` and its bytes. A target that does not exist adds
 * nothing. For naming caches by what they are made from.
 */
export function hashFiles(hash: Hash, root: string, target: string): void {
  if (!existsSync(target)) return;
  if (statSync(target).isDirectory()) {
    for (const entry of readdirSync(target).sort()) if (!entry.includes('.test.')) hashFiles(hash, root, path.join(target, entry));
  } else hash.update(path.relative(root, target)).update('\0').update(readFileSync(target)).update('\0');
}

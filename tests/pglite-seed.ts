/**
 * A fresh embedded DATA_DIR for a service started as a separate process, seeded with the run's
 * migrated PGlite template (tests/pglite-template.ts, made by both global set-ups)
 * instead of running initdb and every migration again: the template's data directory copied
 * where the service keeps it (`DATA_DIR/pglite`).
 * The service then starts as it does on a directory it created before.
 * A directory already holding a database, a service on PostgreSQL, or a process without the
 * template are left alone: those start cold.
 */
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

export function seedDataDir(env: Record<string, string | undefined>): void {
  const template = process.env.AMP_TEST_PGLITE_TEMPLATE;
  if (!template || !env.DATA_DIR || env.DATABASE_URL) return;
  const dir = path.join(env.DATA_DIR, 'pglite');
  if (existsSync(path.join(dir, 'PG_VERSION'))) return;
  mkdirSync(dir, { recursive: true });
  cpSync(template, dir, { recursive: true });
}

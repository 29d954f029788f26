/**
 * Builds one migrated PGlite database (with pg-boss's schema) and dumps it, so every embedded
 * test server starts from a copy instead of running initdb and every migration again.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db';
import { startBoss } from '../src/jobs/boss';
import { createLogger } from '../src/logger';
import { skippedLine } from './needs';

export default async function setup() {
  // Once per run: why the tests needing PostgreSQL, Redis or Chromium are reported as skipped.
  const skipped = skippedLine();
  if (skipped) console.log(skipped);
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-template-'));
  const database = await openDatabase({ dataDir: dir });
  const boss = await startBoss(database, createLogger('silent'));
  await boss.stop({ graceful: false });
  const dump = await database.pglite!.dumpDataDir('none');
  const out = path.resolve('.test-data');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `pglite-template-${process.pid}.tar`);
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await database.close();
  rmSync(dir, { recursive: true, force: true });
  process.env.AMP_TEST_PGLITE_TEMPLATE = file;
  return () => rmSync(file, { force: true });
}

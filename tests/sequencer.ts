/**
 * The order vitest starts test files in: the slowest first, so that the last files to finish
 * are short ones and the workers end together. vitest does this itself from its cache of the
 * previous run, but a clean clone (CI) has none and falls back to ordering by file size, which
 * started the slowest files (workflow runs, recovery, backups) halfway through the run. Their
 * durations are kept in tests/durations.json (seconds per file, from a whole run:
 * `npm run test:timings -- <vitest.json> --save-durations`); a file's own result in the local cache
 * wins over it, and a file in neither (a new one) starts first, as vitest starts unknown files.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const DURATIONS_FILE = path.resolve(import.meta.dirname, 'durations.json');

function recordedDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const recorded = recordedDurations();
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification): number | undefined => {
      const cached = this.ctx.cache.getTestSpecificationResult(spec);
      if (cached) return cached.duration / 1000;
      return recorded[path.relative(root, spec.moduleId).split(path.sep).join('/')];
    };
    return [...files].sort((a, b) => {
      const [da, db] = [seconds(a), seconds(b)];
      if (da === undefined || db === undefined) return da === undefined ? (db === undefined ? 0 : -1) : 1;
      return db - da;
    });
  }
}

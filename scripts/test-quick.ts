/**
 * `npm run test:quick [-- <area> …]`: the focused loop (docs/testing.md). Runs on the embedded
 * backend only (TEST_DATABASE_URL and TEST_REDIS_URL are ignored):
 *   - every unit test (`src/**\/*.test.ts`) and tests/architecture.test.ts;
 *   - the test files changed since HEAD (staged, unstaged or new), or in HEAD when nothing is;
 *   - the HTTP suites of each area those changes touch (`src/<area>/…` → tests/api/<area>*.test.ts
 *     and the suites AREA_SUITES names), or of the areas given as arguments.
 * Prints what it picked and why, then runs vitest on it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const API_SUITES = readdirSync(path.join(root, 'tests', 'api')).filter((f) => f.endsWith('.test.ts'));

/** Areas whose suites are not named after them. */
const AREA_SUITES: Record<string, string[]> = {
  server: ['wire', 'trpc', 'headers', 'hostile', 'idempotency'],
  outbox: ['webhooks', 'webhook-record', 'billing-events', 'group-commit'],
  metering: ['rate-limit', 'request-rate', 'concurrency', 'billing-usage'],
  keys: ['keys', 'bearer'],
  auth: ['bearer', 'identity'],
  identity: ['identity', 'identity-mail', 'dashboard-session'],
  catalog: ['modules', 'reads', 'publishing'],
  modules: ['modules', 'publishing'],
  executions: ['modules', 'executions-filters', 'executions-search', 'group-commit'],
  events: ['webhooks', 'billing-events'],
  tenants: ['register', 'admin', 'billing-plan'],
  billing: ['billing-invoices', 'billing-plan', 'billing-plans', 'billing-usage', 'billing-events'],
  contract: ['openapi', 'published-schemas'],
  jobs: ['webhooks', 'workflows', 'certification'],
  db: ['health', 'nul'],
  lib: ['hostile', 'wire'],
};

/** Code outside src/ and the suites that cover it (also asked for by name: `test:quick -- sdk`). */
const suitesIn = (dir: string) =>
  readdirSync(path.join(root, dir))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `${dir}/${f}`);
const PATH_AREAS: { pattern: RegExp; area: string; suites: () => string[] }[] = [
  { pattern: /^packages\/sdk\//, area: 'sdk', suites: () => suitesIn('tests/sdk').filter((f) => !f.endsWith('python.test.ts')) },
  { pattern: /^packages\/python\//, area: 'python', suites: () => ['tests/sdk/python.test.ts'] },
  { pattern: /^examples\//, area: 'examples', suites: () => ['tests/examples/examples.test.ts'] },
];

function git(...args: string[]): string[] {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

function changedFiles(): string[] {
  const working = [...git('diff', '--name-only', 'HEAD'), ...git('ls-files', '--others', '--exclude-standard')];
  return working.length > 0 ? working : git('diff', '--name-only', 'HEAD~1', 'HEAD');
}

/** The area of a changed file: `src/<area>/…` (or `src/server/…`), else undefined. */
function areaOf(file: string): string | undefined {
  const match = /^src\/([^/]+)\//.exec(file);
  return match?.[1];
}

function suitesOf(area: string): string[] {
  const stem = area.replace(/s$/, '');
  const named = API_SUITES.filter((f) => f.startsWith(area) || f.startsWith(stem));
  const mapped = (AREA_SUITES[area] ?? []).map((s) => `${s}.test.ts`).filter((f) => API_SUITES.includes(f));
  return [...new Set([...named, ...mapped])].map((f) => `tests/api/${f}`);
}

const picked = new Map<string, string>();
const pick = (file: string, why: string) => {
  if (!picked.has(file) && existsSync(path.join(root, file))) picked.set(file, why);
};

const askedAreas = process.argv.slice(2);
const changed = askedAreas.length > 0 ? [] : changedFiles();
for (const file of changed.filter((f) => /\.test\.ts$/.test(f) && !f.startsWith('tests/e2e/'))) pick(file, 'changed');
const areas = new Set([...askedAreas, ...changed.map(areaOf).filter((a): a is string => a !== undefined)]);
for (const area of areas) for (const suite of suitesOf(area)) pick(suite, `area ${area}`);
for (const { pattern, area, suites } of PATH_AREAS) {
  if (askedAreas.includes(area) || changed.some((f) => pattern.test(f))) for (const suite of suites()) pick(suite, area);
}

console.log(`test:quick: unit tests (src/), tests/architecture.test.ts${picked.size ? ', and:' : ''}`);
for (const [file, why] of picked) console.log(`  ${file}  (${why})`);
if (areas.size > 0 && picked.size === 0) console.log(`  (no HTTP suite for ${[...areas].join(', ')})`);

const env = { ...process.env };
delete env.TEST_DATABASE_URL;
delete env.TEST_REDIS_URL;
const result = spawnSync('npx', ['vitest', 'run', 'src/', 'tests/architecture.test.ts', ...picked.keys()], {
  cwd: root,
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);

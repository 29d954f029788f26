/**
 * `npm run billing:close -- --at 2026-12-01T00:00:00Z`: closes the billing cycles that ended at or
 * before `--at` (default: now), exactly as the service's hourly job does with the real clock, and
 * prints each invoice it created as one JSON line on stdout (logs go to stderr). Idempotent: a
 * cycle already invoiced is left alone, so running it again prints nothing new.
 *
 * It uses the service's configuration (DATABASE_URL, or the embedded database in DATA_DIR). An
 * embedded database can be opened by one process only: stop the service first, or ask the
 * running service instead (`POST /api/v1/admin/billing/close {"at": ...}` with `x-admin-token`).
 *
 * Exit status: 0 done; 2 bad arguments (e.g. `--at` not an ISO 8601 date-time); 1 anything else.
 */
import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { futureCloseRefusal } from '../src/billing/close-at';
import { isoDateTime } from '../src/lib/dates';

const USAGE = 'usage: npm run billing:close -- [--at <ISO 8601 date-time, e.g. 2026-12-01T00:00:00Z>]';

function usageError(message: string): never {
  process.stderr.write(`billing:close: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** The `--at` instant, or exit 2 saying why not. */
function parseAt(argv: string[]): Date {
  let values: { at?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { at: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    usageError((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(
      `${USAGE}\nCloses every billing cycle that ended at or before --at (default now) and prints the invoices created as JSON lines.\n`,
    );
    process.exit(0);
  }
  if (values.at === undefined) return new Date();
  const parsed = isoDateTime().safeParse(values.at);
  if (!parsed.success) usageError(`--at must be an ISO 8601 date-time with a time zone (e.g. 2026-12-01T00:00:00Z), got '${values.at}'`);
  const at = new Date(parsed.data);
  const refusal = futureCloseRefusal(at);
  if (refusal) usageError(refusal.replace('`at`', '--at'));
  return at;
}

/**
 * Whether something listens on this machine's configured port (a service there would hold the
 * embedded database). A TCP connect, not an HTTP request: the kernel accepts it even while a
 * loaded service is slow to answer, so a busy service is never mistaken for a stopped one.
 */
function serviceRunning(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.setTimeout(5000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

async function main(): Promise<void> {
  const at = parseAt(process.argv.slice(2));
  // Loaded once the arguments are known to be good: a usage error answers at once.
  const { loadConfig } = await import('../src/config');
  const config = loadConfig(process.env);
  if (!config.databaseUrl && (await serviceRunning(config.port))) {
    process.stderr.write(
      `billing:close: a service is running on port ${config.port}, and the embedded database (DATA_DIR) can be opened by one process only.\n` +
        'Stop the service first, or ask it: POST /api/v1/admin/billing/close {"at": "<ISO time>"} with the x-admin-token header.\n',
    );
    process.exit(1);
  }
  const [{ default: pino }, { createServices }, { closeCycles }, { presentInvoice }] = await Promise.all([
    import('pino'),
    import('../src/app'),
    import('../src/billing/close'),
    import('../src/billing/invoices'),
  ]);
  const logger = pino({ level: config.logLevel, base: undefined }, pino.destination({ dest: 2, sync: true }));
  const svc = await createServices(config, { logger });
  try {
    const created = await closeCycles(svc, { at });
    for (const row of created) process.stdout.write(`${JSON.stringify(presentInvoice(row))}\n`);
    process.stderr.write(`billing:close: cycles closed as of ${at.toISOString()}: ${created.length} invoice(s) created\n`);
  } finally {
    await svc.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`billing:close: failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

/**
 * `npm run db:backup -- <file>` writes a backup of the service's database to <file>;
 * `npm run db:restore -- <file>` loads one into an empty database. Both use the service's
 * configuration: DATABASE_URL (PostgreSQL: pg_dump and pg_restore from the PATH) or the embedded
 * database in DATA_DIR (stop the service first: it admits one process). docs/operations.md, Backups.
 *
 * A backup holds no secrets. Data encrypted at rest (webhook signing secrets, upstream
 * credentials) needs the ENCRYPTION_KEY it was written with: set in the environment, or generated
 * into DATA_DIR/secrets.json. A restore whose ENCRYPTION_KEY would be newly generated is refused
 * unless `--new-secrets` says that is intended.
 *
 * Exit status: 0 done; 2 bad arguments; 1 anything else (the reason on stderr).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const COMMANDS = ['backup', 'restore'] as const;
type Command = (typeof COMMANDS)[number];

function usage(command: string): string {
  return `usage: npm run db:${command} -- <file>${command === 'restore' ? ' [--new-secrets]' : ''}`;
}

function parse(argv: string[]): { command: Command; file: string; newSecrets: boolean } {
  const [first, ...rest] = argv;
  if (!COMMANDS.includes(first as Command)) {
    process.stderr.write(`db-backup: the first argument is backup or restore\n`);
    process.exit(2);
  }
  const command = first as Command;
  let parsed: { positionals: string[]; values: { 'new-secrets'?: boolean } };
  try {
    parsed = parseArgs({
      args: rest,
      options: { 'new-secrets': { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    process.stderr.write(`db:${command}: ${(err as Error).message}\n${usage(command)}\n`);
    process.exit(2);
  }
  const { positionals, values } = parsed;
  if (command === 'backup' && values['new-secrets']) {
    process.stderr.write(`db:backup: --new-secrets is an option of db:restore\n${usage(command)}\n`);
    process.exit(2);
  }
  if (positionals.length !== 1) {
    process.stderr.write(`db:${command}: one file, please\n${usage(command)}\n`);
    process.exit(2);
  }
  return { command, file: path.resolve(positionals[0]!), newSecrets: Boolean(values['new-secrets']) };
}

/** Takes back the secrets this run's configuration generated into DATA_DIR, so a run after the refusal is refused too. */
function forgetGenerated(dataDir: string, names: string[]): void {
  const file = path.join(dataDir, 'secrets.json');
  const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  for (const name of names) delete stored[name];
  if (Object.keys(stored).length === 0) rmSync(file);
  else writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
}

async function main(): Promise<void> {
  const { command, file, newSecrets } = parse(process.argv.slice(2));
  const [{ loadConfig }, { backupDatabase, restoreDatabase }] = await Promise.all([import('../src/config'), import('../src/db/backup')]);
  const config = loadConfig(process.env);
  const target = { databaseUrl: config.databaseUrl, dataDir: config.dataDir };
  const where = config.databaseUrl ? 'the PostgreSQL database (DATABASE_URL)' : `the embedded database in ${config.dataDir}`;
  if (command === 'backup') {
    const { bytes } = await backupDatabase(target, file);
    process.stderr.write(
      `db:backup: ${where} written to ${file} (${bytes} bytes)\n` +
        `db:backup: the backup holds no secrets: keep ENCRYPTION_KEY ${config.storedSecrets.includes('ENCRYPTION_KEY') ? `(here in ${path.join(config.dataDir, 'secrets.json')}) ` : ''}with it, stored apart; a restore needs it\n`,
    );
  } else {
    if (config.generatedSecrets.includes('ENCRYPTION_KEY') && !newSecrets) {
      process.stderr.write(
        `db:restore: no ENCRYPTION_KEY is set and ${config.dataDir} had none, so a new one was generated: the backup's encrypted data (webhook secrets, credentials) would not be readable with it.\n` +
          `Set ENCRYPTION_KEY, or put the original DATA_DIR's secrets.json at ${path.join(config.dataDir, 'secrets.json')}, and run again; or pass --new-secrets to restore with new ones.\n`,
      );
      forgetGenerated(config.dataDir, config.generatedSecrets);
      process.exit(1);
    }
    await restoreDatabase(target, file);
    process.stderr.write(`db:restore: ${file} loaded into ${where}\n`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`db-backup: failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

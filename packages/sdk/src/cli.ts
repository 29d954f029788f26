#!/usr/bin/env node
/**
 * `amp`: the command line over the SDK. `runCli` does the work (and is what the tests call);
 * run as a program, this file passes it the process's arguments, environment and streams.
 *
 * Credentials: `--api-key`/`--base-url`, else AMP_API_KEY/AMP_BASE_URL, else what `amp login`
 * stored in `<config dir>/amp/config.json` (AMP_CONFIG_DIR overrides the directory).
 */
import { chmodSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Amp } from './client.js';
import { SDK_VERSION, type Credentials, type FetchLike } from './core.js';
import { listen, newListenSecret } from './listen.js';
import { browserLogin, freshSession, LoginError, revokeSession, type OAuthSession } from './login.js';
import { tailExecutions } from './tail.js';
import {
  ApiError,
  AuthenticationError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
} from './errors.js';

/** Exit codes (also in the README). */
export const EXIT = {
  ok: 0,
  /** An API error not listed below. */
  error: 1,
  /** Bad arguments: unknown command or flag, missing value, unreadable JSON. */
  usage: 2,
  /** No credential, or the API refused it (401) or the operation (403). */
  auth: 3,
  notFound: 4,
  /** 429 or 5xx once the retries are spent. */
  unavailable: 5,
  /** No answer from the service. */
  connection: 6,
} as const;

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  fetch?: FetchLike;
  /** Ends a long-running command (`webhooks listen`): the program aborts it on SIGINT/SIGTERM. */
  signal?: AbortSignal;
  /** Opens the sign-in page of `login --browser` (default: the system's browser opener). */
  openUrl?: (url: string) => void | Promise<void>;
}

interface StoredConfig {
  base_url: string;
  /** Logged in with a key... */
  api_key?: string;
  /** ...or in the browser (`amp login --browser`): the OAuth tokens for the REST API. */
  oauth?: OAuthSession;
  /** The tenant a browser sign-in acts for (`--tenant`; default: the person's oldest membership). */
  tenant_id?: string;
  /** The signing secret of `amp webhooks listen` (generated on its first run). */
  listen_secret?: string;
}

class UsageError extends Error {}

/** The commands that take a command of their own (`amp keys list`). */
const GROUPS = ['keys', 'modules', 'executions', 'webhooks', 'invoices'] as const;
const isGroup = (command: string): command is (typeof GROUPS)[number] => (GROUPS as readonly string[]).includes(command);

/** The lines of USAGE about one group: each of its commands with the lines that continue it. */
function groupLines(group: string): string[] {
  const lines = USAGE.split('\n');
  const own: string[] = [];
  let inGroup = false;
  for (const line of lines.slice(lines.indexOf('Commands:') + 1, lines.indexOf('Options:'))) {
    if (/^ {2}\S/.test(line)) inGroup = line.startsWith(`  ${group} `);
    if (inGroup && line.trim()) own.push(line);
  }
  return own;
}

/** The commands of a group (`list`, `create` of `keys`). */
const groupCommands = (group: string): string[] => groupLines(group).flatMap((line) => /^ {2}\S+ ([a-z]+)/.exec(line)?.[1] ?? []);

/** USAGE for one group: its commands, then the options. */
function groupUsage(group: string): string {
  const options = USAGE.slice(USAGE.indexOf('Options:'));
  return `Usage: amp ${group} <command> [options]\n\nCommands:\n${groupLines(group).join('\n')}\n\n${options}`;
}
/** No credential at all (before any request). */
class AuthenticationErrorLike extends Error {}

const USAGE = `Usage: amp <command> [options]

Commands:
  login [--api-key KEY] [--base-url URL]   check the key and store it (also reads AMP_API_KEY)
  login --browser [--scopes a,b] [--tenant ID] [--no-open]
                                           sign in in the browser instead (the default when no
                                           key is given); the command keeps a token it renews
  logout                                   forget the stored credential (a browser sign-in is
                                           also ended at the service)
  whoami                                   the tenant, plan and key behind the credential
  keys list                                the tenant's API keys
  keys create <name> [--scopes a,b]        a new key (its secret is shown once)
  modules search <query> [--category C]    search the catalog
  modules show <module>                    a module and its actions
  modules run <module> <action> [--input JSON | --input-file FILE]   (FILE - : standard input)
  executions list [--limit N] [--status S] [--module M] [--cursor C]
  executions show <execution_id>
  executions tail [--status S] [--module M] [--since ISO] [--interval SECONDS]
                                           follow executions as they are recorded (Ctrl-C stops)
  usage [--cycle YYYY-MM]                  metered usage in the billing cycle
  invoices list                            the tenant's invoices
  invoices show <invoice_id>               an invoice and its lines
  invoices pdf <invoice_id> [--out FILE]   save the invoice's PDF (default <number>.pdf)
  webhooks list                            the webhook subscriptions
  webhooks create <url> [--events a,b]     a push subscription (default events: all); its
                                           signing secret is shown
  webhooks test <webhook_id> [--event-type T]
                                           send one signed test delivery now and show the reply
  webhooks listen --forward URL [--secret whsec_...] [--events a,b]
                                           stream the tenant's events and POST each one to URL,
                                           signed like a delivery (Ctrl-C stops)

Options:
  --json          print the API's JSON answer
  --api-key KEY   the credential (default: AMP_API_KEY, then the stored one)
  --base-url URL  the service (default: AMP_BASE_URL, then the stored one, then http://localhost:3000)
  -h, --help      this text
  -v, --version   the version of amp

Exit codes: 0 ok, 1 API error, 2 usage, 3 authentication/permission, 4 not found,
5 rate limited or unavailable, 6 connection failed.
`;

/** `<config dir>/amp/config.json`: AMP_CONFIG_DIR, else XDG_CONFIG_HOME, APPDATA or ~/.config. */
export function configFile(env: Record<string, string | undefined>): string {
  const dir = env.AMP_CONFIG_DIR ?? path.join(env.XDG_CONFIG_HOME ?? env.APPDATA ?? path.join(env.HOME ?? homedir(), '.config'), 'amp');
  return path.join(dir, 'config.json');
}

function readRawConfig(env: Record<string, string | undefined>): Partial<StoredConfig> {
  try {
    const parsed = JSON.parse(readFileSync(configFile(env), 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Partial<StoredConfig>) : {};
  } catch {
    return {};
  }
}

function readConfig(env: Record<string, string | undefined>): StoredConfig | undefined {
  const parsed = readRawConfig(env);
  const credential = typeof parsed.api_key === 'string' || (typeof parsed.oauth === 'object' && parsed.oauth !== null);
  return credential && typeof parsed.base_url === 'string' ? (parsed as StoredConfig) : undefined;
}

/** Writes `config` over the stored fields (keeping the others, e.g. the listen secret). */
function writeConfig(env: Record<string, string | undefined>, config: Partial<StoredConfig>): string {
  const file = configFile(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify({ ...readRawConfig(env), ...config }, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)\n';
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd() + '\n';
  return line(columns.map((c) => c.toUpperCase())) + rows.map((r) => line(columns.map((c) => cell(r[c])))).join('');
}

function fields(record: Record<string, unknown>, names: string[]): string {
  const width = Math.max(...names.map((n) => n.length));
  return names
    .filter((n) => record[n] !== undefined)
    .map(
      (n) => `${n.padEnd(width)}  ${typeof record[n] === 'object' && record[n] !== null ? JSON.stringify(record[n]) : String(record[n])}\n`,
    )
    .join('');
}

function bearerHeaders(credential: Credentials): Record<string, string> {
  return {
    authorization: `Bearer ${credential.bearerToken ?? ''}`,
    ...(credential.tenantId ? { 'x-tenant-id': credential.tenantId } : {}),
  };
}

/** The system's way to open an address in the browser; a failure leaves the printed address. */
async function openInBrowser(url: string): Promise<void> {
  const { spawn } = await import('node:child_process');
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    spawn(command, args as string[], { stdio: 'ignore', detached: true })
      .on('error', () => {})
      .unref();
  } catch {
    // No opener here: the address is printed.
  }
}

/** The most arguments each command takes after its name (`modules search` takes a query of any length). */
const MOST_ARGUMENTS: Record<string, number> = {
  login: 0,
  logout: 0,
  whoami: 0,
  usage: 0,
  'keys list': 0,
  'keys create': 1,
  'modules show': 1,
  'modules run': 2,
  'executions list': 0,
  'executions show': 1,
  'executions tail': 0,
  'invoices list': 0,
  'invoices show': 1,
  'invoices pdf': 1,
  'webhooks list': 0,
  'webhooks create': 1,
  'webhooks test': 1,
  'webhooks listen': 0,
};

/** The text of `--input-file` (`-`: standard input); a file that cannot be read is a usage error. */
function readInputFile(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : ((err as NodeJS.ErrnoException).code ?? String(err));
    throw new UsageError(`--input-file: cannot read ${file} (${reason}).`);
  }
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof AuthenticationError || err instanceof PermissionDeniedError || err instanceof LoginError) return EXIT.auth;
  if (err instanceof NotFoundError) return EXIT.notFound;
  if (err instanceof RateLimitError || err instanceof ServerError) return EXIT.unavailable;
  if (err instanceof ConnectionError) return EXIT.connection;
  return EXIT.error;
}

/** Runs one `amp` command line; resolves to its exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let json = false;
  /** What a usage error prints after its message: the group's commands for `amp keys ...`, else all. */
  const named = argv.find((arg) => !arg.startsWith('-'));
  let usage = named && isGroup(named) ? groupUsage(named) : USAGE;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        'api-key': { type: 'string' },
        'base-url': { type: 'string' },
        scopes: { type: 'string' },
        category: { type: 'string' },
        input: { type: 'string' },
        'input-file': { type: 'string' },
        limit: { type: 'string' },
        status: { type: 'string' },
        module: { type: 'string' },
        cycle: { type: 'string' },
        forward: { type: 'string' },
        secret: { type: 'string' },
        events: { type: 'string' },
        'event-type': { type: 'string' },
        browser: { type: 'boolean' },
        'no-open': { type: 'boolean' },
        tenant: { type: 'string' },
        since: { type: 'string' },
        interval: { type: 'string' },
        out: { type: 'string' },
        cursor: { type: 'string' },
      },
    });
    json = values.json === true;
    const [command, sub, ...rest] = positionals;
    usage = command && isGroup(command) ? groupUsage(command) : USAGE;
    if (command && isGroup(command) && (values.help || !sub || !groupCommands(command).includes(sub))) {
      // `amp invoices`, `amp keys frob`, `amp webhooks --help`: the group's own commands.
      if (values.help) {
        io.stdout(usage);
        return EXIT.ok;
      }
      io.stderr(`${sub ? `Unknown command: ${command} ${sub}` : `\`amp ${command}\` takes a command`}.\n\n${usage}`);
      return EXIT.usage;
    }
    if (values.version || command === 'version') {
      io.stdout(json ? JSON.stringify({ version: SDK_VERSION }) + '\n' : `amp ${SDK_VERSION}\n`);
      return EXIT.ok;
    }
    if (values.help || command === 'help') {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    if (!command) {
      io.stderr(USAGE);
      return EXIT.usage;
    }
    const most = MOST_ARGUMENTS[isGroup(command) ? `${command} ${sub}` : command];
    const given = isGroup(command) ? rest : positionals.slice(1);
    if (most !== undefined && given.length > most)
      throw new UsageError(`Unexpected argument${given.length - most > 1 ? 's' : ''}: ${given.slice(most).join(' ')}`);
    const stored = readConfig(io.env);
    const baseUrl = values['base-url'] ?? io.env.AMP_BASE_URL ?? stored?.base_url ?? 'http://localhost:3000';
    const givenKey = values['api-key'] ?? io.env.AMP_API_KEY;
    const apiKey = givenKey ?? stored?.api_key;
    if (!/^https?:\/\//i.test(baseUrl) || !URL.canParse(baseUrl))
      throw new UsageError(`--base-url takes an http:// or https:// URL, e.g. https://amp.example.com (got "${baseUrl}").`);
    if (apiKey && !/^[\x21-\x7e]+$/.test(apiKey))
      throw new UsageError('The API key holds characters an API key never has (spaces, or letters outside ASCII): check what was pasted.');
    const print = (body: unknown, human: () => string) => io.stdout(json ? JSON.stringify(body, null, 2) + '\n' : human());
    const credentials = async (): Promise<Credentials> => {
      if (apiKey) return { apiKey };
      if (stored?.oauth) {
        const renewed = await freshSession(stored.oauth, io.fetch);
        if (renewed) {
          stored.oauth = renewed;
          writeConfig(io.env, { oauth: renewed });
        }
        return { bearerToken: stored.oauth.access_token, ...(stored.tenant_id ? { tenantId: stored.tenant_id } : {}) };
      }
      throw new AuthenticationErrorLike('Not logged in: run `amp login` (or `amp login --api-key <key>`), or set AMP_API_KEY.');
    };
    const client = async () =>
      new Amp(await credentials(), {
        baseUrl,
        fetch: io.fetch,
        // A wait of a second or more (a 429's Retry-After) is said, not sat through in silence.
        onRetry: ({ status, delayMs, attempt }) => {
          if (delayMs >= 1000 && !json)
            io.stderr(
              `${status === 429 ? 'Rate limited' : status ? `HTTP ${status}` : 'No answer'}; retrying in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1}).\n`,
            );
        },
      });
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new UsageError('--limit takes a positive whole number.');
    const need = (value: string | undefined, what: string): string => {
      if (!value) throw new UsageError(`Missing ${what}.`);
      return value;
    };

    switch (isGroup(command) ? `${command} ${sub}` : command) {
      case 'login': {
        if (givenKey && !values.browser) {
          const me = await new Amp({ apiKey: givenKey }, { baseUrl, fetch: io.fetch }).me();
          const file = writeConfig(io.env, { base_url: baseUrl, api_key: givenKey, oauth: undefined, tenant_id: undefined });
          print({ ...me, config_file: file }, () => `Logged in to ${baseUrl} as tenant ${me.tenant_id}; the key is stored in ${file}.\n`);
          return EXIT.ok;
        }
        const session = await browserLogin({
          baseUrl,
          fetch: io.fetch,
          ...(values.scopes ? { scopes: splitList(values.scopes) } : {}),
          signal: io.signal,
          openUrl: async (url) => {
            io.stderr(`Sign in to ${baseUrl} in your browser:\n\n  ${url}\n\nWaiting for you to finish there (Ctrl-C to stop)...\n`);
            if (!values['no-open']) await (io.openUrl ?? openInBrowser)(url);
          },
        });
        const me = await new Amp(
          { bearerToken: session.access_token, ...(values.tenant ? { tenantId: values.tenant } : {}) },
          { baseUrl, fetch: io.fetch },
        ).me();
        const file = writeConfig(io.env, { base_url: baseUrl, api_key: undefined, oauth: session, tenant_id: values.tenant });
        print(
          { ...me, scopes: session.scope.split(' ').filter(Boolean), config_file: file },
          () => `Logged in to ${baseUrl} for tenant ${me.tenant_id} (${session.scope || 'no scopes'}); the sign-in is stored in ${file}.\n`,
        );
        return EXIT.ok;
      }
      case 'logout': {
        const revoked = stored?.oauth ? await revokeSession(stored.oauth, io.fetch) : false;
        // The credential goes; the listen secret stays, so a receiver configured with it keeps verifying.
        writeConfig(io.env, { base_url: undefined, api_key: undefined, oauth: undefined, tenant_id: undefined });
        print({ logged_out: true, revoked }, () => `Logged out${revoked ? ' (the sign-in is ended at the service)' : ''}.\n`);
        return EXIT.ok;
      }
      case 'whoami': {
        const me = await (await client()).me();
        print(me, () => fields(me as unknown as Record<string, unknown>, Object.keys(me)));
        return EXIT.ok;
      }
      case 'keys list': {
        const keys: unknown[] = [];
        for await (const key of (await client()).keys.listAll({ limit: 100 })) keys.push(key);
        print({ data: keys }, () =>
          table(keys as unknown as Record<string, unknown>[], ['key_id', 'name', 'prefix', 'scopes', 'created_at', 'last_used_at']),
        );
        return EXIT.ok;
      }
      case 'keys create': {
        const name = need(rest[0], 'the key name (amp keys create <name>)');
        const scopes = values.scopes ? splitList(values.scopes) : undefined;
        const created = await (await client()).keys.create({ name, ...(scopes ? { scopes: scopes as never } : {}) });
        print(
          created,
          () =>
            `${fields(created as unknown as Record<string, unknown>, ['key_id', 'name', 'scopes'])}api_key   ${created.api_key}\n(The secret is shown only now.)\n`,
        );
        return EXIT.ok;
      }
      case 'modules search': {
        const q = need(rest.join(' ') || undefined, 'a search query (amp modules search <query>)');
        const found = await (
          await client()
        ).modules.search({
          q,
          ...(values.category ? { category: values.category } : {}),
          ...(limit ? { limit } : {}),
        });
        print(found, () => table(found.data as unknown as Record<string, unknown>[], ['module', 'action', 'title', 'score']));
        return EXIT.ok;
      }
      case 'modules show': {
        const module = await (await client()).modules.get(need(rest[0], 'a module name (amp modules show <module>)'));
        print(module, () => {
          const m = module as unknown as Record<string, unknown>;
          const actions = (module.actions ?? []) as unknown as Record<string, unknown>[];
          return (
            fields(m, ['name', 'title', 'version', 'category', 'description', 'installed']) + '\n' + table(actions, ['name', 'description'])
          );
        });
        return EXIT.ok;
      }
      case 'modules run': {
        const name = need(rest[0], 'a module (amp modules run <module> <action>)');
        const action = need(rest[1], 'an action (amp modules run <module> <action>)');
        let input: Record<string, unknown> = {};
        if (values.input !== undefined && values['input-file'] !== undefined)
          throw new UsageError('Give --input or --input-file, not both.');
        const option = values.input !== undefined ? '--input' : '--input-file';
        const raw = values.input ?? (values['input-file'] !== undefined ? readInputFile(values['input-file']) : undefined);
        if (raw !== undefined) {
          try {
            input = JSON.parse(raw.replace(/^\uFEFF/, '')) as Record<string, unknown>;
          } catch {
            throw new UsageError(`${option} is not JSON.`);
          }
          if (!input || typeof input !== 'object' || Array.isArray(input)) throw new UsageError(`${option} must be a JSON object.`);
        }
        const result = await (await client()).modules.execute(name, { action, input });
        print(result, () => JSON.stringify(result.output, null, 2) + '\n');
        return EXIT.ok;
      }
      case 'executions list': {
        const query = {
          ...(limit ? { limit } : {}),
          ...(values.status ? { status: values.status as never } : {}),
          ...(values.module ? { module: values.module } : {}),
          ...(values.cursor ? { cursor: values.cursor } : {}),
        };
        const page = await (await client()).executions.list(query);
        const next = page.body.has_more ? page.body.next_cursor : null;
        print(
          page.body,
          () =>
            table(page.data as unknown as Record<string, unknown>[], [
              'execution_id',
              'module',
              'action',
              'status',
              'latency_ms',
              'created_at',
            ]) + (next ? `(more: amp executions list --cursor ${next})\n` : ''),
        );
        return EXIT.ok;
      }
      case 'executions show': {
        const execution = await (await client()).executions.get(need(rest[0], 'an execution id (amp executions show <id>)'));
        print(execution, () => fields(execution as unknown as Record<string, unknown>, Object.keys(execution)));
        return EXIT.ok;
      }
      case 'executions tail': {
        const intervalSeconds = values.interval === undefined ? 2 : Number(values.interval);
        if (!(intervalSeconds >= 0.5 && intervalSeconds <= 3600)) throw new UsageError('--interval takes seconds, 0.5 to 3600.');
        if (values.since !== undefined && Number.isNaN(Date.parse(values.since)))
          throw new UsageError('--since takes an ISO 8601 time, e.g. 2026-01-31T09:00:00Z.');
        const tailing = await client();
        if (!json) io.stdout(`Following the executions of ${baseUrl} (Ctrl-C to stop).\n`);
        await tailExecutions({
          client: tailing,
          intervalMs: intervalSeconds * 1000,
          ...(values.since ? { since: new Date(values.since).toISOString() } : {}),
          query: {
            ...(values.status ? { status: values.status as never } : {}),
            ...(values.module ? { module: values.module } : {}),
          },
          signal: io.signal,
          onInterrupted: ({ reason, retryInMs }) =>
            io.stderr(
              json
                ? JSON.stringify({ type: 'interrupted', reason, retry_in_ms: retryInMs }) + '\n'
                : `No answer (${reason}); trying again in ${Math.ceil(retryInMs / 1000)} s.\n`,
            ),
          onExecution: (e) =>
            io.stdout(
              json
                ? JSON.stringify(e) + '\n'
                : `${e.created_at}  ${e.execution_id}  ${e.module}.${e.action}  ${e.status}${e.latency_ms === null || e.latency_ms === undefined ? '' : `  ${e.latency_ms} ms`}${e.error ? `  ${e.error.code}: ${e.error.message}` : ''}\n`,
            ),
        });
        return EXIT.ok;
      }
      case 'invoices list': {
        const invoices: unknown[] = [];
        for await (const invoice of (await client()).invoices.listAll({ limit: 100 })) invoices.push(invoice);
        print({ data: invoices }, () =>
          table(invoices as Record<string, unknown>[], ['id', 'number', 'period_start', 'period_end', 'status', 'total_usd', 'due_at']),
        );
        return EXIT.ok;
      }
      case 'invoices show': {
        const invoice = await (await client()).invoices.get(need(rest[0], 'an invoice id (amp invoices show <invoice_id>)'));
        print(invoice, () => {
          const record = invoice as unknown as Record<string, unknown>;
          const summary = fields(record, [
            'id',
            'number',
            'status',
            'period_start',
            'period_end',
            'due_at',
            'subtotal_usd',
            'total_usd',
            'pdf_url',
          ]);
          return `${summary}\n${table(invoice.lines as unknown as Record<string, unknown>[], ['description', 'quantity', 'unit_amount_usd', 'amount_usd'])}`;
        });
        return EXIT.ok;
      }
      case 'invoices pdf': {
        const id = need(rest[0], 'an invoice id (amp invoices pdf <invoice_id>)');
        const amp = await client();
        const invoice = await amp.invoices.get(id);
        const bytes = new Uint8Array(await amp.invoices.pdf(id));
        const file = values.out ?? `${invoice.number}.pdf`;
        writeFileSync(file, bytes);
        print({ id, file, bytes: bytes.byteLength }, () => `Saved ${file} (${bytes.byteLength} bytes).\n`);
        return EXIT.ok;
      }
      case 'webhooks list': {
        const hooks: unknown[] = [];
        for await (const hook of (await client()).webhooks.listAll({ limit: 100 })) hooks.push(hook);
        print({ data: hooks }, () =>
          table(
            (hooks as Record<string, unknown>[]).map((h) => ({ ...h, events: (h.events as string[]).join(',') })),
            ['id', 'kind', 'url', 'events', 'status', 'consecutive_failures', 'created_at'],
          ),
        );
        return EXIT.ok;
      }
      case 'webhooks create': {
        const url = need(rest[0], 'the receiver URL (amp webhooks create <url>)');
        const events = values.events ? splitList(values.events) : ['*'];
        const created = await (await client()).webhooks.create({ url, events });
        print(
          created,
          () =>
            `${fields(created as unknown as Record<string, unknown>, ['id', 'url', 'events', 'status'])}secret  ${created.secret}\n(Verify deliveries with this secret.)\n`,
        );
        return EXIT.ok;
      }
      case 'webhooks test': {
        const id = need(rest[0], 'a webhook id (amp webhooks test <webhook_id>)');
        const result = await (await client()).webhooks.test(id, values['event-type'] ? { event_type: values['event-type'] } : {});
        print(result, () =>
          result.delivered
            ? `Delivered ${result.event_id}: the receiver answered ${result.status_code} in ${result.latency_ms} ms.\n`
            : `Not delivered ${result.event_id}: ${result.status_code ? `the receiver answered ${result.status_code}` : result.error} (${result.latency_ms} ms).\n`,
        );
        return result.delivered ? EXIT.ok : EXIT.error;
      }
      case 'usage': {
        const usage = await (await client()).usage.get(values.cycle ? { cycle: values.cycle } : undefined);
        // The per-day series is for --json (and charts); the summary fits a terminal.
        print(usage, () =>
          fields(
            usage as unknown as Record<string, unknown>,
            Object.keys(usage).filter((k) => k !== 'daily'),
          ),
        );
        return EXIT.ok;
      }
      case 'webhooks listen': {
        const forwardUrl = need(values.forward, '--forward URL (amp webhooks listen --forward http://localhost:4242/hooks)');
        try {
          if (!/^https?:$/.test(new URL(forwardUrl).protocol)) throw new Error();
        } catch {
          throw new UsageError('--forward takes an http(s) URL.');
        }
        const credential = await credentials();
        let secret = values.secret;
        let stored = '';
        if (!secret) {
          secret = readRawConfig(io.env).listen_secret;
          if (!secret) {
            secret = newListenSecret();
            stored = writeConfig(io.env, { listen_secret: secret });
          } else stored = configFile(io.env);
        }
        const events = values.events ? splitList(values.events) : undefined;
        const line = (record: Record<string, unknown>, human: string) => io.stdout(json ? JSON.stringify(record) + '\n' : human + '\n');
        line(
          { type: 'secret', secret, ...(stored ? { config_file: stored } : {}) },
          `Signing secret: ${secret}${stored ? ` (stored in ${stored})` : ''}\nVerify the forwarded deliveries with it, e.g. verifyWebhook(rawBody, headers, secret).`,
        );
        await listen({
          baseUrl,
          ...('apiKey' in credential && credential.apiKey
            ? { apiKey: credential.apiKey }
            : { authHeaders: async () => bearerHeaders(await credentials()) }),
          forwardUrl,
          secret,
          events,
          fetch: io.fetch,
          signal: io.signal,
          onConnected: ({ reconnect, lastEventId }) =>
            line(
              { type: reconnect ? 'reconnected' : 'ready', forward: forwardUrl, ...(lastEventId ? { last_event_id: lastEventId } : {}) },
              reconnect
                ? `Reconnected${lastEventId ? ` (resuming after ${lastEventId})` : ''}.`
                : `Ready: forwarding the events of ${baseUrl} to ${forwardUrl} (Ctrl-C to stop).`,
            ),
          onDisconnected: ({ reason, retryInMs }) =>
            io.stderr(
              json
                ? JSON.stringify({ type: 'disconnected', reason, retry_in_ms: retryInMs }) + '\n'
                : `Stream dropped (${reason}); reconnecting in ${(retryInMs / 1000).toFixed(1)} s.\n`,
            ),
          onForwarded: (r) =>
            line(
              { type: 'forwarded', id: r.id, event: r.event, status: r.status ?? null, error: r.error ?? null, ms: r.ms },
              `${new Date().toISOString()}  ${r.event}  ${r.id}  -> ${r.status !== undefined ? String(r.status) : `failed: ${r.error}`} (${r.ms} ms)`,
            ),
        });
        line({ type: 'stopped' }, 'Stopped.');
        return EXIT.ok;
      }
      default:
        throw new UsageError(`Unknown command: ${[command, sub].filter(Boolean).join(' ')}`);
    }
  } catch (err) {
    const code = err instanceof AuthenticationErrorLike ? EXIT.auth : exitCodeFor(err);
    if (err instanceof ApiError) {
      if (json) io.stderr(JSON.stringify(err.body ?? { error: err.code, message: err.message }) + '\n');
      else io.stderr(`Error ${err.status} ${err.code}: ${err.message}${err.requestId ? ` (request ${err.requestId})` : ''}\n`);
    } else if (err instanceof Error && (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) {
      io.stderr(`${err.message}\n\n${usage}`);
      return EXIT.usage;
    } else {
      io.stderr(`${err instanceof Error ? err.message : String(err)}\n`);
    }
    return code;
  }
}

/** Whether this file is the program (run directly; the `amp` bin, bin/amp.mjs, calls `main`). */
function isMain(): boolean {
  if (!process.argv[1]) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

/** The program: runs the process's command line, Ctrl-C (or SIGTERM) ending a long-running command cleanly; a second one exits at once. */
export async function main(argv = process.argv.slice(2)): Promise<void> {
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort(new Error(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.exitCode = await runCli(argv, {
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    signal: stop.signal,
  });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

if (isMain()) void main();

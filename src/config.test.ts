import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, logSecretOrigins } from './config';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'amp-config-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** loadConfig must throw a ConfigError whose message names `variable`. */
function expectConfigError(env: Record<string, string>, variable: string) {
  let error: unknown;
  try {
    loadConfig({ DATA_DIR: dataDir, ...env });
  } catch (err) {
    error = err;
  }
  expect(error, `${JSON.stringify(env)} should be refused`).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toContain(variable);
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({ DATA_DIR: dataDir });
    expect(c.port).toBe(3000);
    expect(c.nodeEnv).toBe('development');
    expect(c.dataDir).toBe(path.resolve(dataDir));
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.upstash).toBeUndefined();
    expect(c.redisKeyPrefix).toBe('');
    expect(c.adminToken).toBeUndefined();
    expect(c.adminEmails).toEqual([]);
    expect(c.webhooks).toEqual({ retryScheduleMs: [0, 10_000, 60_000, 300_000], timeoutMs: 10_000, allowPrivate: false });
    expect(c.registerLimitPerHour).toBe(20);
    expect(c.trustProxy).toBe(false);
    expect(c.publicBaseUrl).toBe('http://localhost:3000');
    expect(c.auth.audience).toBe('authenticated');
    expect(c.logLevel).toBe('info');
    expect(c.executionQueueWaitMs).toBe(5000);
    expect(c.encryptionKey).toHaveLength(32);
  });

  it('reads explicit values; empty strings count as unset', () => {
    const c = loadConfig({
      DATA_DIR: dataDir,
      PORT: '8080',
      PUBLIC_BASE_URL: 'https://amp.example.com/',
      WEBHOOK_RETRY_SCHEDULE_MS: '0, 500',
      WEBHOOK_ALLOW_PRIVATE: '1',
      TRUST_PROXY: 'true',
      ADMIN_EMAILS: 'Ops@Example.com, b@example.com',
      REDIS_URL: '',
      EXECUTION_QUEUE_WAIT_MS: '250',
    });
    expect(c.port).toBe(8080);
    expect(c.publicBaseUrl).toBe('https://amp.example.com');
    expect(c.webhooks.retryScheduleMs).toEqual([0, 500]);
    expect(c.webhooks.allowPrivate).toBe(true);
    expect(c.trustProxy).toBe(true);
    expect(c.adminEmails).toEqual(['ops@example.com', 'b@example.com']);
    expect(c.redisUrl).toBeUndefined();
    expect(c.executionQueueWaitMs).toBe(250);
    // PUBLIC_BASE_URL defaults to the configured port.
    expect(loadConfig({ DATA_DIR: dataDir, PORT: '4100' }).publicBaseUrl).toBe('http://localhost:4100');
  });

  it('fails fast with a ConfigError naming the bad variable', () => {
    expectConfigError({ PORT: 'abc' }, 'PORT');
    expectConfigError({ PORT: '70000' }, 'PORT');
    expectConfigError({ ENCRYPTION_KEY: randomBytes(16).toString('base64') }, 'ENCRYPTION_KEY');
    expectConfigError({ ENCRYPTION_KEY: randomBytes(33).toString('base64') }, 'ENCRYPTION_KEY');
    expectConfigError({ WEBHOOK_ALLOW_PRIVATE: 'maybe' }, 'WEBHOOK_ALLOW_PRIVATE');
    expectConfigError({ DATABASE_URL: 'not a url' }, 'DATABASE_URL');
    expectConfigError({ REDIS_URL: 'nope' }, 'REDIS_URL');
    expectConfigError({ UPSTASH_REDIS_REST_URL: 'https://eu1.upstash.io' }, 'UPSTASH_REDIS_REST_TOKEN');
    expectConfigError({ UPSTASH_REDIS_REST_TOKEN: 'tok' }, 'UPSTASH_REDIS_REST_URL');
    expectConfigError({ REDIS_KEY_PREFIX: 'staging prefix' }, 'REDIS_KEY_PREFIX');
    expectConfigError({ WEBHOOK_RETRY_SCHEDULE_MS: '0,ten' }, 'WEBHOOK_RETRY_SCHEDULE_MS');
    expectConfigError({ WEBHOOK_TIMEOUT_MS: '0' }, 'WEBHOOK_TIMEOUT_MS');
    expectConfigError({ REGISTER_LIMIT_PER_HOUR: '-1' }, 'REGISTER_LIMIT_PER_HOUR');
    expectConfigError({ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN');
    expectConfigError({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL');
    expectConfigError({ EXECUTION_QUEUE_WAIT_MS: '-1' }, 'EXECUTION_QUEUE_WAIT_MS');
    expectConfigError({ EXECUTION_QUEUE_WAIT_MS: '600000' }, 'EXECUTION_QUEUE_WAIT_MS');
    expectConfigError({ NODE_ENV: 'staging' }, 'NODE_ENV');
  });

  it('accepts Upstash URL and token together', () => {
    const c = loadConfig({ DATA_DIR: dataDir, UPSTASH_REDIS_REST_URL: 'https://eu1.upstash.io', UPSTASH_REDIS_REST_TOKEN: 'tok' });
    expect(c.upstash).toEqual({ url: 'https://eu1.upstash.io', token: 'tok' });
  });

  it('persists generated secrets in DATA_DIR/secrets.json (0600), stable across loads', () => {
    const first = loadConfig({ DATA_DIR: dataDir });
    expect(first.generatedSecrets.sort()).toEqual(['AUTH_ANON_KEY', 'AUTH_SIGNING_KEY', 'ENCRYPTION_KEY', 'SESSION_SECRET']);
    const file = path.join(dataDir, 'secrets.json');
    expect(existsSync(file)).toBe(true);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(Buffer.from(stored.ENCRYPTION_KEY, 'base64')).toEqual(first.encryptionKey);
    expect(stored.SESSION_SECRET).toBe(first.sessionSecret);
    expect(stored.AUTH_ANON_KEY).toBe(first.auth.anonKey);
    expect(first.sessionSecret.length).toBeGreaterThanOrEqual(32);

    const second = loadConfig({ DATA_DIR: dataDir });
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
    expect(second.sessionSecret).toBe(first.sessionSecret);
    expect(second.auth.anonKey).toBe(first.auth.anonKey);
    expect(second.generatedSecrets).toEqual([]);
    expect(second.storedSecrets.sort()).toEqual(['AUTH_ANON_KEY', 'AUTH_SIGNING_KEY', 'ENCRYPTION_KEY', 'SESSION_SECRET']);
    expect(second.auth.signingKey).toBe(first.auth.signingKey);
    expect(JSON.parse(first.auth.signingKey!)).toMatchObject({ kty: 'EC', crv: 'P-256' });

    // Another DATA_DIR gets other secrets.
    const other = mkdtempSync(path.join(tmpdir(), 'amp-config-'));
    try {
      expect(loadConfig({ DATA_DIR: other }).encryptionKey.equals(first.encryptionKey)).toBe(false);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('creates DATA_DIR when it does not exist yet', () => {
    const nested = path.join(dataDir, 'a', 'b');
    loadConfig({ DATA_DIR: nested });
    expect(existsSync(path.join(nested, 'secrets.json'))).toBe(true);
  });

  it('uses an explicit ENCRYPTION_KEY as is and does not store it', () => {
    const key = randomBytes(32);
    const c = loadConfig({ DATA_DIR: dataDir, ENCRYPTION_KEY: key.toString('base64'), SESSION_SECRET: 's'.repeat(40) });
    expect(c.encryptionKey.equals(key)).toBe(true);
    expect(c.sessionSecret).toBe('s'.repeat(40));
    expect(c.generatedSecrets).toEqual(['AUTH_ANON_KEY', 'AUTH_SIGNING_KEY']);
    const stored = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'));
    expect(stored).not.toHaveProperty('ENCRYPTION_KEY');
    expect(stored).not.toHaveProperty('SESSION_SECRET');
    // A generated key already on disk does not override an explicit one.
    const generated = loadConfig({ DATA_DIR: dataDir }).encryptionKey;
    expect(generated.equals(key)).toBe(false);
    expect(loadConfig({ DATA_DIR: dataDir, ENCRYPTION_KEY: key.toString('base64') }).encryptionKey.equals(key)).toBe(true);
  });
});

describe('logSecretOrigins', () => {
  function capture() {
    const lines: { level: string; fields: object; msg: string }[] = [];
    const at = (level: string) => (fields: object, msg: string) => void lines.push({ level, fields, msg });
    return { lines, logger: { warn: at('warn'), info: at('info') } as never };
  }

  it("warns once, on the start that generates the secrets; later starts say at info that DATA_DIR's are used", () => {
    const first = capture();
    logSecretOrigins(loadConfig({ DATA_DIR: dataDir }), first.logger);
    expect(first.lines).toHaveLength(1);
    expect(first.lines[0]).toMatchObject({ level: 'warn', fields: { dataDir } });
    expect(first.lines[0]!.msg).toContain('generated');

    for (let i = 0; i < 2; i++) {
      const later = capture();
      logSecretOrigins(loadConfig({ DATA_DIR: dataDir }), later.logger);
      expect(later.lines).toHaveLength(1);
      expect(later.lines[0]).toMatchObject({ level: 'info', fields: { dataDir } });
      expect((later.lines[0]!.fields as { secrets: string[] }).secrets.sort()).toEqual([
        'AUTH_ANON_KEY',
        'AUTH_SIGNING_KEY',
        'ENCRYPTION_KEY',
        'SESSION_SECRET',
      ]);
    }

    // Every secret configured: nothing to say.
    const configured = capture();
    logSecretOrigins(
      loadConfig({
        DATA_DIR: dataDir,
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        SESSION_SECRET: 's'.repeat(40),
        AUTH_ANON_KEY: 'a'.repeat(32),
        AUTH_JWT_SECRET: 'j'.repeat(32),
      }),
      configured.logger,
    );
    expect(configured.lines).toEqual([]);
  });
});

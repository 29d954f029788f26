/**
 * compose.yaml (two instances behind Caddy, PostgreSQL 15, Redis 7) checked without a container
 * engine: against the Compose specification's JSON schema (the copy dclint ships), and for what
 * the service needs — health checks and start order, the shared secrets required, and every
 * variable given to the service one that src/config.ts reads and accepts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  restart?: string;
  read_only?: boolean;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}
type ServiceName = 'app1' | 'app2' | 'proxy' | 'postgres' | 'redis';
const compose = parse(read('compose.yaml'), { merge: true }) as {
  services: Record<ServiceName, Service>;
  volumes: Record<string, unknown>;
};
const { services } = compose;
const apps = ['app1', 'app2'] as const;

/** The settings .env would hold: every required variable, with values the service accepts. */
const dotEnv: Record<string, string> = {
  POSTGRES_PASSWORD: 'pw',
  PUBLIC_BASE_URL: 'https://amp.example.com',
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  SESSION_SECRET: 's'.repeat(32),
  AUTH_ANON_KEY: 'anon-key',
  AUTH_SIGNING_KEY: JSON.stringify({ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }),
};

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error} (an error when unset or empty). */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    const given = vars[name];
    if (given) return given;
    if (op === '?') throw new Error(`${name}: ${arg}`);
    return op === '-' ? (arg ?? '') : '';
  });
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'amp-compose-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('compose.yaml', () => {
  it('follows the Compose specification (JSON schema)', () => {
    const dclint = path.dirname(createRequire(import.meta.url).resolve('dclint/package.json'));
    const schemaFile = path.join(dclint, 'schemas', 'compose.schema.json');
    // Draft 07, Ajv's default; its `$schema` (https, no `#`) is not the address Ajv knows it by.
    const { $schema: _draft, ...schema } = JSON.parse(readFileSync(schemaFile, 'utf8'));
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
  });

  it('runs two instances of the image on PostgreSQL 15 and Redis 7, behind a proxy', () => {
    expect(Object.keys(services).sort()).toEqual(['app1', 'app2', 'postgres', 'proxy', 'redis']);
    expect(services.postgres.image).toBe('postgres:15');
    expect(services.redis.image).toBe('redis:7');
    for (const app of apps) {
      expect(services[app].build).toBe('.');
      expect(services[app].read_only).toBe(true);
    }
    const caddyfile = read('deploy/Caddyfile');
    expect(caddyfile).toMatch(/reverse_proxy app1:3000 app2:3000/);
    expect(caddyfile).toContain('health_uri /api/v1/health/ready');
    expect(services.proxy.volumes).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
  });

  it('checks the health of every service, restarts them, and starts each after what it needs is healthy', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.healthcheck?.test[0], name).toBe('CMD');
      expect(service.restart, name).toBe('unless-stopped');
    }
    for (const app of apps) {
      expect(services[app].depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
      expect(services[app].healthcheck!.test.join(' ')).toContain('http://127.0.0.1:3000/api/v1/health/ready');
    }
    expect(services.proxy.depends_on).toEqual({ app1: { condition: 'service_healthy' }, app2: { condition: 'service_healthy' } });
  });

  it('gives each instance a volume of its own for DATA_DIR, and keeps the databases in volumes', () => {
    const dataVolumes = apps.map((app) => services[app].volumes!.find((v) => v.endsWith(':/data'))!.split(':')[0]!);
    expect(new Set(dataVolumes).size).toBe(2);
    expect(services.postgres.volumes).toContain('postgres-data:/var/lib/postgresql/data');
    expect(services.redis.volumes).toContain('redis-data:/data');
    for (const volume of [...dataVolumes, 'postgres-data', 'redis-data']) expect(compose.volumes).toHaveProperty(volume);
  });

  it('gives the service only variables src/config.ts reads, with values it accepts and no secret left to generate', () => {
    const configSource = read('src/config.ts');
    for (const app of apps) {
      const env = services[app].environment!;
      for (const name of Object.keys(env)) expect(configSource, name).toMatch(new RegExp(`^\\s+${name}: `, 'm'));
      const resolved = Object.fromEntries(Object.entries(env).map(([name, value]) => [name, interpolate(value, dotEnv)]));
      const config = loadConfig({ ...resolved, DATA_DIR: dataDir });
      expect(config.generatedSecrets).toEqual([]);
      expect(config.storedSecrets).toEqual([]);
      expect(config).toMatchObject({ nodeEnv: 'production', port: 3000, trustProxy: true, publicBaseUrl: 'https://amp.example.com' });
      expect(config.databaseUrl).toBe('postgres://amp:pw@postgres:5432/amp');
      expect(config.redisUrl).toBe('redis://redis:6379');
    }
  });

  it('refuses to start without each shared secret', () => {
    for (const name of Object.keys(dotEnv)) {
      const missing = { ...dotEnv, [name]: '' };
      const env = Object.values(services.app1.environment!);
      expect(() => env.map((value) => interpolate(value, missing)), name).toThrow(name);
    }
  });
});

describe('deploy/compose.env.example', () => {
  it('names every variable compose.yaml requires', () => {
    const example = read('deploy/compose.env.example');
    const required = [...read('compose.yaml').matchAll(/\$\{(\w+):\?/g)].map((m) => m[1]);
    for (const name of new Set(required)) expect(example, name).toMatch(new RegExp(`^${name}=`, 'm'));
  });
});

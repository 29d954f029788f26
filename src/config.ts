import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Logger } from './logger';

/**
 * Every environment variable (README, Configuration), parsed once. Nothing else reads process.env.
 * A bad value fails fast with a message naming the variable.
 */
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const optionalUrl = z.url().optional();
const commaList = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number')
    .default('3000')
    .transform(Number)
    .pipe(z.number().max(65535)),
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' }).optional(),
  REDIS_URL: optionalUrl,
  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9._:-]*$/, 'must be letters, digits and . _ : - (at most 64)')
    .default(''),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  ADMIN_EMAILS: commaList.default([]),
  AUTH_URL: optionalUrl,
  AUTH_JWKS_URL: optionalUrl,
  AUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  AUTH_ISSUER: z.string().optional(),
  AUTH_AUDIENCE: z.string().default('authenticated'),
  AUTH_ANON_KEY: z.string().optional(),
  AUTH_SIGNING_KEY: z
    .string()
    .refine(isPrivateEcJwk, 'must be a P-256 private key as a JWK (JSON with kty "EC", crv "P-256", x, y, d)')
    .optional(),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default('0,10000,60000,300000')
    .refine((s) => s.split(',').every((x) => /^\s*\d+\s*$/.test(x)), 'must be a comma list of milliseconds, e.g. 0,10000,60000,300000')
    .transform((s) => s.split(',').map((x) => Number(x.trim())))
    .pipe(z.array(z.number().int().min(0)).min(1).max(10)),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(10_000),
  WEBHOOK_ALLOW_PRIVATE: flag.default(false),
  REGISTER_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(20),
  OAUTH_REGISTER_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(20),
  SIGN_IN_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  TRUST_PROXY: flag.default(false),
  PUBLIC_BASE_URL: optionalUrl,
  ENCRYPTION_KEY: z
    .string()
    .refine((s) => /^[A-Za-z0-9+/]{43}=$/.test(s) && Buffer.from(s, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  EXECUTION_QUEUE_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  SANDBOX_WORKERS: z.coerce.number().int().min(1).max(64).optional(),
  WORKFLOW_MAX_RUN_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(30 * 86_400_000)
    .default(86_400_000),
  CERTIFICATION_PUBLISH_DELAY_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(5000),
  DATABASE_LOCK_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(2000),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
});

export type Env = z.input<typeof envSchema>;

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  upstash?: { url: string; token: string };
  /** Put before every Redis key the service uses: deployments sharing one Redis keep apart. */
  redisKeyPrefix: string;
  adminToken?: string;
  adminEmails: string[];
  auth: {
    url?: string;
    jwksUrl?: string;
    jwtSecret?: string;
    issuer?: string;
    audience: string;
    anonKey: string;
    /**
     * The built-in identity provider (/auth/v1/*) is on: none of AUTH_URL, AUTH_JWKS_URL,
     * AUTH_JWT_SECRET is set. Its tokens are then the bearer tokens the API verifies.
     */
    builtin: boolean;
    /** The built-in provider's ES256 signing key (a private JWK, JSON); set when `builtin`. */
    signingKey?: string;
  };
  /** Mail for the built-in identity provider (sign-up confirmation, recovery); unset = none. */
  smtpUrl?: string;
  webhooks: { retryScheduleMs: number[]; timeoutMs: number; allowPrivate: boolean };
  registerLimitPerHour: number;
  /** OAuth dynamic client registrations (POST /oauth/register) per client IP per hour. */
  oauthRegisterLimitPerHour: number;
  /** Password sign-ins per client IP per minute (the built-in identity provider). */
  signInLimitPerMinute: number;
  trustProxy: boolean;
  publicBaseUrl: string;
  /** PUBLIC_BASE_URL is not set: publicBaseUrl is the default `http://localhost:PORT`. */
  publicBaseUrlDefaulted: boolean;
  encryptionKey: Buffer;
  sessionSecret: string;
  logLevel: string;
  /** Bearer token GET /metrics requires; unset: metrics answer loopback clients only. */
  metricsToken?: string;
  /** OTLP/HTTP endpoint traces are exported to; unset: no tracing (src/telemetry). */
  otlpEndpoint?: string;
  /** How long an execution may wait for a free worker before it is refused (429, nothing counted). */
  executionQueueWaitMs: number;
  /** Worker threads running `javascript` modules; unset: one per core (at least 2). */
  sandboxWorkers?: number;
  /** How long after a publish or update its certification run starts (an edit within it shares the run). */
  certificationPublishDelayMs: number;
  /** Wall time of one workflow run: past it, the run fails at its next step (`timeout`). */
  workflowMaxRunMs: number;
  /**
   * PostgreSQL deadlines of every connection (docs/operations.md, Database deadlines); 0 turns one
   * off. Not used by the embedded database, whose one connection belongs to this process alone.
   */
  database: { statementTimeoutMs: number; lockTimeoutMs: number; idleInTransactionTimeoutMs: number };
  /** Names of secrets not configured that this load generated into DATA_DIR (first start). */
  generatedSecrets: string[];
  /** Names of secrets not configured that this load read from DATA_DIR (generated earlier). */
  storedSecrets: string[];
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (Boolean(e.UPSTASH_REDIS_REST_URL) !== Boolean(e.UPSTASH_REDIS_REST_TOKEN)) {
    throw new ConfigError('Invalid configuration:\n  UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together');
  }
  const dataDir = path.resolve(e.DATA_DIR);
  const generatedSecrets: string[] = [];
  const storedSecrets: string[] = [];
  const secret = (name: string, given: string | undefined, make: () => string) => {
    if (given) return given;
    const { value, created } = persistedSecret(dataDir, name, make);
    (created ? generatedSecrets : storedSecrets).push(name);
    return value;
  };
  const builtinAuth = !e.AUTH_URL && !e.AUTH_JWKS_URL && !e.AUTH_JWT_SECRET;
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    upstash: e.UPSTASH_REDIS_REST_URL ? { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN! } : undefined,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    adminToken: e.ADMIN_TOKEN,
    adminEmails: e.ADMIN_EMAILS.map((m) => m.toLowerCase()),
    auth: {
      url: e.AUTH_URL,
      jwksUrl: e.AUTH_JWKS_URL,
      jwtSecret: e.AUTH_JWT_SECRET,
      // The built-in provider signs with its own issuer; an external one: AUTH_ISSUER, else {AUTH_URL}/auth/v1.
      issuer: builtinAuth
        ? `${publicBaseUrl}/auth/v1`
        : (e.AUTH_ISSUER ?? (e.AUTH_URL ? `${e.AUTH_URL.replace(/\/+$/, '')}/auth/v1` : undefined)),
      audience: e.AUTH_AUDIENCE,
      anonKey: secret('AUTH_ANON_KEY', e.AUTH_ANON_KEY, () => randomBytes(24).toString('base64url')),
      builtin: builtinAuth,
      signingKey: builtinAuth ? secret('AUTH_SIGNING_KEY', e.AUTH_SIGNING_KEY, generateSigningJwk) : e.AUTH_SIGNING_KEY,
    },
    smtpUrl: e.SMTP_URL,
    webhooks: {
      retryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    },
    registerLimitPerHour: e.REGISTER_LIMIT_PER_HOUR,
    oauthRegisterLimitPerHour: e.OAUTH_REGISTER_LIMIT_PER_HOUR,
    signInLimitPerMinute: e.SIGN_IN_LIMIT_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    publicBaseUrl,
    publicBaseUrlDefaulted: e.PUBLIC_BASE_URL === undefined,
    encryptionKey: Buffer.from(
      secret('ENCRYPTION_KEY', e.ENCRYPTION_KEY, () => randomBytes(32).toString('base64')),
      'base64',
    ),
    sessionSecret: secret('SESSION_SECRET', e.SESSION_SECRET, () => randomBytes(32).toString('base64url')),
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    executionQueueWaitMs: e.EXECUTION_QUEUE_WAIT_MS,
    sandboxWorkers: e.SANDBOX_WORKERS,
    certificationPublishDelayMs: e.CERTIFICATION_PUBLISH_DELAY_MS,
    workflowMaxRunMs: e.WORKFLOW_MAX_RUN_MS,
    database: {
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      lockTimeoutMs: e.DATABASE_LOCK_TIMEOUT_MS,
      idleInTransactionTimeoutMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    generatedSecrets,
    storedSecrets,
  };
}

/**
 * Tracing's settings, read before anything else is loaded (src/telemetry/start.ts) and without the
 * rest of the configuration (which writes generated secrets): undefined when
 * OTEL_EXPORTER_OTLP_ENDPOINT is unset or malformed (then the full configuration's load fails the
 * start). The exporter reads the other OTEL_EXPORTER_OTLP_* variables itself.
 */
export function tracingConfig(
  env: Record<string, string | undefined> = process.env,
): { endpoint: string; serviceName: string } | undefined {
  const parsed = z
    .object({ endpoint: z.url(), serviceName: z.string().min(1).default('agent-module-platform') })
    .safeParse({ endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined, serviceName: env.OTEL_SERVICE_NAME || undefined });
  return parsed.success ? parsed.data : undefined;
}

/**
 * Says where the secrets that were not configured come from: a warning once, on the start that
 * generated them into DATA_DIR; on later starts, at info, that DATA_DIR's secrets are used.
 */
export function logSecretOrigins(
  config: Pick<Config, 'generatedSecrets' | 'storedSecrets' | 'dataDir'>,
  logger: Pick<Logger, 'warn' | 'info'>,
): void {
  if (config.generatedSecrets.length > 0) {
    logger.warn(
      { generated: config.generatedSecrets, dataDir: config.dataDir },
      'secrets were generated into DATA_DIR (not configured); set them explicitly when several instances share a database',
    );
  }
  if (config.storedSecrets.length > 0) {
    logger.info({ secrets: config.storedSecrets, dataDir: config.dataDir }, 'using the secrets generated earlier in DATA_DIR');
  }
}

/**
 * Warns when PUBLIC_BASE_URL is not set: the default `http://localhost:PORT` goes into links in
 * mails, token issuers and the OAuth metadata, which only clients on this machine can follow.
 */
export function warnDefaultPublicBaseUrl(
  config: Pick<Config, 'publicBaseUrl' | 'publicBaseUrlDefaulted'>,
  logger: Pick<Logger, 'warn'>,
): void {
  if (!config.publicBaseUrlDefaulted) return;
  logger.warn(
    { publicBaseUrl: config.publicBaseUrl },
    'PUBLIC_BASE_URL is not set: using the default; set it to the URL clients reach this service at (links in mails, token issuers, OAuth metadata)',
  );
}

/** A fresh P-256 private key as a JWK (JSON): the built-in identity provider's ES256 signing key. */
function generateSigningJwk(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return JSON.stringify(privateKey.export({ format: 'jwk' }));
}

function isPrivateEcJwk(s: string): boolean {
  try {
    const jwk = JSON.parse(s) as Record<string, unknown>;
    return jwk.kty === 'EC' && jwk.crv === 'P-256' && ['x', 'y', 'd'].every((k) => typeof jwk[k] === 'string');
  } catch {
    return false;
  }
}

/** Reads a generated secret from DATA_DIR/secrets.json, creating it on first use (`created`). */
function persistedSecret(dataDir: string, name: string, make: () => string): { value: string; created: boolean } {
  const file = path.join(dataDir, 'secrets.json');
  const stored: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const existing = stored[name];
  if (existing) return { value: existing, created: false };
  const value = make();
  stored[name] = value;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  return { value, created: true };
}

/**
 * Publishing: POST /api/v1/modules and PUT /api/v1/modules/{module} (scope `modules:write`).
 * A published module is visible to its tenant only until made public; names are global and
 * unique (built-in packs included). Contract details: docs/publishing.md.
 */
import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { linearRegExp } from '../executions/schemas';
import { and, eq } from 'drizzle-orm';
import { recordAudit } from '../audit/record';
import type { Principal } from '../auth/principal';
import type { Executor } from '../db';
import { moduleActions, modules, tenants, type ModuleRuntime } from '../db/schema';
import { SCHEMA_CHECK_MS } from '../executions/engine';
import { encryptSecret, generateSigningSecret } from '../lib/secrets';
import { PACK_LOADERS } from '../modules/packs';
import { assertPublicUrl, SsrfError } from '../net/ssrf';
import { AppError, conflict, invalidRequest, notFound, type Issue } from '../lib/errors';
import type { Services } from '../services';
import { requestRunAfterPublish } from '../certification/runs';
import { presentModule } from './present';
import { findVisibleModule } from './queries';
import type { ModuleRuntimeInput, PublishedActionInput, PublishModuleInput, UpdateModuleInput } from './schema';

const SIGNING_SECRET_PREFIX = 'msec_';
const DEFAULT_TIMEOUT_MS = 10_000;
/** Each input/output schema, serialized. */
const MAX_SCHEMA_BYTES = 64 * 1024;
/** How long the publish-time check lets a javascript source's top level run. */
const SOURCE_CHECK_TIMEOUT_MS = 1000;

/**
 * Names no tenant may publish: the built-in packs, and `workflows`, whose tool names
 * (`workflows__start`, `workflows__get_run`) are the platform's own MCP workflow tools
 * (src/server/mcp/workflows.ts): a module of that name would list a second tool of the same name
 * that no call could reach.
 */
const RESERVED_NAMES = new Set([...Object.keys(PACK_LOADERS), 'workflows']);

/** POST /api/v1/modules: 201 with the module view (+ `signing_secret` for the http runtime). */
export async function publishModule(svc: Services, principal: Principal, input: PublishModuleInput) {
  failOn(await checkActions(svc, input.actions));
  if (RESERVED_NAMES.has(input.name)) throw conflict('The name is taken.');
  await assertNameFree(svc.db, principal.tenantId, input.name);
  const runtime = await prepareRuntime(svc, input.runtime, undefined);
  const [tenant] = await svc.db.select({ agentName: tenants.agentName }).from(tenants).where(eq(tenants.id, principal.tenantId));
  if (!tenant) throw notFound('tenant');

  const { row, actions } = await svc.db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(modules)
      .values({
        name: input.name,
        version: input.version,
        title: input.title,
        description: input.description,
        category: input.category,
        tags: input.tags,
        publisher: tenant.agentName,
        ownerTenantId: principal.tenantId,
        visibility: input.visibility,
        runtime: runtime.stored,
      })
      .onConflictDoNothing({ target: modules.name })
      .returning();
    // Lost a race with another publisher of the same name.
    if (!inserted) throw conflict('The name is taken.');
    const actions = await insertActions(tx, input.name, input.actions);
    await requestRunAfterPublish(svc, tx, input.name, input.version, principal.tenantId);
    await recordAudit(tx, principal.tenantId, {
      action: 'module.published',
      target: { type: 'module', id: input.name },
      changes: {
        version: input.version,
        visibility: input.visibility,
        runtime: input.runtime?.type ?? 'javascript',
        actions: input.actions.map((a) => a.name),
      },
    });
    return { row: inserted, actions };
  });
  svc.moduleCache.invalidate(input.name);
  return withSecret(presentModule(row, actions, false), runtime.signingSecret);
}

/**
 * PUT /api/v1/modules/{module}: changes any field of the tenant's own module; `actions`, when
 * given, replace all actions. Another tenant's module (public or not) and built-ins are 404.
 */
export async function updateModule(svc: Services, principal: Principal, input: UpdateModuleInput) {
  const { module: name, ...changes } = input;
  const given = Object.entries(changes).filter(([, v]) => v !== undefined);
  if (given.length === 0) {
    throw invalidRequest('Nothing to update: give at least one field.', [{ path: '', message: 'At least one field is required' }]);
  }
  const [own] = await svc.db
    .select()
    .from(modules)
    .where(and(eq(modules.name, name), eq(modules.ownerTenantId, principal.tenantId)));
  if (!own) throw notMine(name);
  if (changes.actions) failOn(await checkActions(svc, changes.actions));
  const runtime = changes.runtime ? await prepareRuntime(svc, changes.runtime, own.runtime) : undefined;

  const found = await svc.db.transaction(async (tx) => {
    await tx
      .update(modules)
      .set({
        ...(changes.version !== undefined && { version: changes.version }),
        ...(changes.title !== undefined && { title: changes.title }),
        ...(changes.description !== undefined && { description: changes.description }),
        ...(changes.category !== undefined && { category: changes.category }),
        ...(changes.tags !== undefined && { tags: changes.tags }),
        ...(changes.visibility !== undefined && { visibility: changes.visibility }),
        ...(runtime && { runtime: runtime.stored }),
        // Strictly later than before: compiled input schemas are cached per (name, version, updated_at).
        updatedAt: new Date(Math.max(Date.now(), own.updatedAt.getTime() + 1)),
      })
      .where(and(eq(modules.name, name), eq(modules.ownerTenantId, principal.tenantId)));
    if (changes.actions) {
      await tx.delete(moduleActions).where(eq(moduleActions.moduleName, name));
      await insertActions(tx, name, changes.actions);
    }
    await requestRunAfterPublish(svc, tx, name, changes.version ?? own.version, principal.tenantId);
    await recordAudit(tx, principal.tenantId, {
      action: 'module.updated',
      target: { type: 'module', id: name },
      changes: {
        fields: given.map(([field]) => field),
        ...(changes.version !== undefined && { version: changes.version }),
        ...(changes.visibility !== undefined && { visibility: changes.visibility }),
        ...(changes.actions && { actions: changes.actions.map((a) => a.name) }),
      },
    });
    return findVisibleModule(tx, principal.tenantId, name);
  });
  if (!found) throw notMine(name);
  svc.moduleCache.invalidate(name);
  return withSecret(presentModule(found.module, found.actions, found.installed), runtime?.signingSecret);
}

/** Built-ins, another tenant's modules (public or private) and unknown names alike. */
const notMine = (name: string) => new AppError('not_found', `You have no module named '${name}'.`);

function withSecret<T extends object>(view: T, signingSecret: string | undefined): T & { signing_secret?: string } {
  return signingSecret ? { ...view, signing_secret: signingSecret } : view;
}

function failOn(issues: Issue[]): void {
  const first = issues[0];
  if (first) throw invalidRequest(`Invalid request: ${first.path}: ${first.message}`, issues);
}

/** 409 when the name is anyone's module. Another tenant's private module is not revealed as such. */
async function assertNameFree(db: Executor, tenantId: string, name: string): Promise<void> {
  const [existing] = await db.select({ owner: modules.ownerTenantId }).from(modules).where(eq(modules.name, name));
  if (!existing) return;
  if (existing.owner === tenantId) {
    throw conflict(`You already publish a module named '${name}'; change it with PUT /api/v1/modules/${name}.`);
  }
  throw conflict('The name is taken.');
}

async function insertActions(tx: Executor, moduleName: string, actions: PublishedActionInput[]) {
  return tx
    .insert(moduleActions)
    .values(
      actions.map((a, position) => ({
        moduleName,
        name: a.name,
        description: a.description,
        inputSchema: a.input_schema,
        outputSchema: a.output_schema,
        examples: a.examples.map((e) => ({ input: e.input, output: e.output })),
        timeoutMs: a.timeout_ms ?? DEFAULT_TIMEOUT_MS,
        position,
      })),
    )
    .returning();
}

// ---------------------------------------------------------------------------------------------
// Actions: names, JSON Schemas, examples
// ---------------------------------------------------------------------------------------------

/**
 * Every problem with the actions, as issues: duplicate names; schemas that are not valid JSON
 * Schema 2020-12 (compiled with ajv, as the engine does), too large, or that declare `$id`/anchors
 * or non-local `$ref`s (the engine compiles every module's schemas in one ajv instance, where
 * identifiers would collide across tenants); an input_schema whose type is not `object`;
 * examples whose input or output does not match.
 */
/** Why a schema whose validation recursed without end (a `$ref` back to itself that reads no deeper into the value) is refused. */
const SELF_REFERENCE = 'The schema refers to itself without end: a $ref cycle that does not descend into the value';

export async function checkActions(svc: Services, actions: PublishedActionInput[]): Promise<Issue[]> {
  // A fresh instance per check: nothing a publisher sends stays registered.
  // The engine's linear-time pattern engine: a pattern RE2 cannot run is refused at publish time.
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, logger: false, code: { regExp: linearRegExp as never } });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const issues: Issue[] = [];
  const seen = new Set<string>();
  // Examples are checked against the schemas off the request thread, under a deadline (engine.ts
  // checkSchema): a publisher's schema and example can take ajv exponential or quadratic time.
  const exampleChecks: { at: string; ex: string; part: 'input' | 'output'; schema: Record<string, unknown>; value: unknown }[] = [];
  actions.forEach((action, i) => {
    const at = `actions.${i}`;
    if (seen.has(action.name)) issues.push({ path: `${at}.name`, message: `Duplicate action name '${action.name}'` });
    seen.add(action.name);
    const compiled: Record<'input_schema' | 'output_schema', ReturnType<typeof ajv.compile> | undefined> = {
      input_schema: undefined,
      output_schema: undefined,
    };
    for (const key of ['input_schema', 'output_schema'] as const) {
      const schema = action[key];
      const problem = schemaProblem(schema);
      if (problem) {
        issues.push({ path: `${at}.${key}`, message: problem });
        continue;
      }
      try {
        compiled[key] = ajv.compile(schema);
      } catch (err) {
        issues.push({
          path: `${at}.${key}`,
          message: `Not a valid JSON Schema (2020-12): ${oneLine(err instanceof Error ? err.message : String(err))}`,
        });
      }
    }
    if (action.input_schema.type !== 'object') {
      issues.push({ path: `${at}.input_schema.type`, message: "The input_schema must describe an object (type: 'object')" });
    }
    action.examples.forEach((example, j) => {
      const ex = `${at}.examples.${j}`;
      if (!('output' in example) || example.output === undefined)
        issues.push({ path: `${ex}.output`, message: 'Each example needs an output' });
      for (const part of ['input', 'output'] as const) {
        if (!compiled[`${part}_schema`] || (part === 'output' && example.output === undefined)) continue;
        exampleChecks.push({ at, ex, part, schema: action[`${part}_schema`], value: example[part] });
      }
    });
  });
  const nonce = randomUUID();
  const results = await Promise.all(
    exampleChecks.map((c, k) => svc.sandbox.validate(`publish:${nonce}:${k}`, c.schema, c.value, SCHEMA_CHECK_MS)),
  );
  results.forEach((checked, k) => {
    const { at, ex, part } = exampleChecks[k]!;
    if (checked.valid === true) return;
    if (checked.valid === undefined) {
      issues.push({
        path: `${at}.${part}_schema`,
        message:
          checked.reason === 'unbounded'
            ? SELF_REFERENCE
            : `Checking the example against the schema ${checked.reason === 'slow' ? `took over ${SCHEMA_CHECK_MS} ms` : 'failed'}: simplify the schema or the example`,
      });
      return;
    }
    for (const issue of checked.issues.slice(0, 5)) {
      issues.push({
        path: [`${ex}.${part}`, issue.path].filter(Boolean).join('.'),
        message: `Does not match the ${part}_schema: ${issue.message}`,
      });
    }
  });
  return issues.slice(0, 50);
}

function schemaProblem(schema: Record<string, unknown>): string | undefined {
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES) return 'The schema must be at most 64 KB (65,536 bytes) as JSON';
  let problem: string | undefined;
  const walk = (node: unknown, depth: number): void => {
    if (problem || typeof node !== 'object' || node === null) return;
    if (depth > 64) {
      problem = 'The schema is nested too deeply';
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if ((key === '$id' || key === '$anchor' || key === '$dynamicAnchor') && typeof value === 'string') {
        problem = `'${key}' is not supported in published schemas`;
        return;
      }
      if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string' && !value.startsWith('#')) {
        problem = `Only local references ('#/...') are supported, not '${value.slice(0, 100)}'`;
        return;
      }
      walk(value, depth + 1);
    }
  };
  walk(schema, 0);
  return problem;
}

function oneLine(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

// ---------------------------------------------------------------------------------------------
// Runtimes
// ---------------------------------------------------------------------------------------------

interface PreparedRuntime {
  stored: Exclude<ModuleRuntime, { type: 'builtin' }>;
  /** The signing secret to show once (generated, or given by the publisher). */
  signingSecret?: string;
}

/**
 * Checks a runtime at publish time and builds its stored form:
 * - javascript: the source evaluates in the sandbox within 1 s and defines `handle`;
 * - http: the endpoint passes the SSRF guard (https and a public address unless
 *   WEBHOOK_ALLOW_PRIVATE=1; it is checked again at every call) and carries no credentials; the
 *   signing secret (given, kept from the previous http runtime, or generated) is stored encrypted.
 */
async function prepareRuntime(svc: Services, runtime: ModuleRuntimeInput, previous: ModuleRuntime | undefined): Promise<PreparedRuntime> {
  if (runtime.type === 'javascript') {
    const checked = await svc.sandbox.check(runtime.source, SOURCE_CHECK_TIMEOUT_MS);
    if (!checked.ok) {
      const message =
        checked.code === 'timeout'
          ? `The source's top level did not finish within ${SOURCE_CHECK_TIMEOUT_MS} ms`
          : checked.code === 'invalid_input'
            ? `The source threw at its top level: ${checked.message}`
            : checked.message;
      throw invalidRequest(`Invalid request: runtime.source: ${message}`, [{ path: 'runtime.source', message }]);
    }
    return { stored: { type: 'javascript', source: runtime.source } };
  }

  const endpointIssue = (message: string) =>
    invalidRequest(`Invalid request: runtime.endpoint: ${message}`, [{ path: 'runtime.endpoint', message }]);
  let url: URL;
  try {
    url = new URL(runtime.endpoint);
  } catch {
    throw endpointIssue('The endpoint is not a valid URL');
  }
  if (url.username || url.password)
    throw endpointIssue('The endpoint must not carry credentials; requests are authenticated by their signature');
  const allowPrivate = svc.config.webhooks.allowPrivate;
  try {
    await assertPublicUrl(url, { allowPrivate, requireHttps: !allowPrivate });
  } catch (err) {
    if (err instanceof SsrfError) throw endpointIssue(`The endpoint is not allowed: ${err.message}`);
    throw err;
  }
  let signingSecret = runtime.secret;
  let encrypted: string;
  if (signingSecret) encrypted = encryptSecret(svc.config.encryptionKey, signingSecret);
  else if (previous?.type === 'http') encrypted = previous.secret_encrypted;
  else {
    signingSecret = generateSigningSecret(SIGNING_SECRET_PREFIX);
    encrypted = encryptSecret(svc.config.encryptionKey, signingSecret);
  }
  return { stored: { type: 'http', endpoint: url.href, secret_encrypted: encrypted }, signingSecret };
}

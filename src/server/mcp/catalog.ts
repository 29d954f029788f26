/**
 * What /api/mcp shows of the catalog: module actions as MCP tools, module documentation as MCP
 * resources, both only as far as the key's policy lets it call them. Reads go through the
 * catalog's own functions (listAllModules, getModule); tool calls go through executeAction —
 * there is no second implementation of visibility, installation, validation, quota, policy or
 * recording here.
 */
import type { CallToolResult, ReadResourceResult, Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../auth/principal';
import { withCallableActions } from '../../catalog/callable';
import { getModule, listAllModules } from '../../catalog/modules';
import type { presentModule } from '../../catalog/present';
import { actionName, moduleName } from '../../catalog/schema';
import { executeAction } from '../../executions/execute';
import { findUnstorable, unstorableInput } from '../../lib/storable';
import type { Services } from '../../services';
import { AppError } from '../errors';

type ModuleView = ReturnType<typeof presentModule>;
type ActionView = ModuleView['actions'][number];

/** MCP's "resource not found" (spec: server/resources, "Error Handling"). */
export const RESOURCE_NOT_FOUND = -32002;

export const META_PREFIX = 'agent-module-platform';

/**
 * Tools per tools/list page. Large enough that the built-in catalog (128 actions) and a good
 * number of published modules fit in one page: many MCP clients (and the SDK's `listTools`, which
 * leaves the loop to its caller) read only the first page. Beyond it, `nextCursor` continues.
 */
export const TOOLS_PAGE_SIZE = 256;

/**
 * What one connection may see: every visible module, or only those named in the connection URL
 * (`/api/mcp?modules=text,json`). Names that are not visible modules are ignored (and reported).
 * `toolSearch` (`?tools=search`): tools/list holds only `search_tools` and `call_tool`.
 */
export interface ConnectionScope {
  modules?: ReadonlySet<string>;
  toolSearch?: boolean;
}

/** At most this many names are read from `?modules=` (and reported as unknown). */
const MAX_SCOPE_MODULES = 100;

/**
 * `?modules=a,b` (repeatable; comma-separated; blanks dropped). Absent or empty: no narrowing.
 * Names are taken as written (module names are lower-case), so `Text` is an unknown module.
 */
export function parseConnectionScope(search: URLSearchParams): ConnectionScope {
  const names = search
    .getAll('modules')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)
    .slice(0, MAX_SCOPE_MODULES);
  return {
    ...(names.length > 0 ? { modules: new Set(names) } : {}),
    ...(search.get('tools') === 'search' ? { toolSearch: true } : {}),
  };
}

const inScope = (scope: ConnectionScope, module: string) => !scope.modules || scope.modules.has(module);

/** Tool names LLM APIs accept (OpenAI, Anthropic): at most 64 of `[a-zA-Z0-9_-]`. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * `module__action`. Module names have no underscore and action names no double underscore
 * (the naming rules of modules and actions), so the first `__` splits a name unambiguously; 30 + 2 + 30 ≤ 64 characters.
 */
export function toolName(module: string, action: string): string {
  return `${module}__${action}`;
}

export function parseToolName(name: string): { module: string; action: string } | undefined {
  const at = name.indexOf('__');
  if (at < 0) return undefined;
  const module = name.slice(0, at);
  const action = name.slice(at + 2);
  if (!moduleName.safeParse(module).success || !actionName.safeParse(action).success) return undefined;
  return { module, action };
}

/** The module's current trust score and tier, as tool descriptions show them (docs/trust.md). */
const trustNote = (m: Pick<ModuleView, 'trust_score' | 'certification_tier'>) =>
  `trust score ${m.trust_score}/100, certification ${m.certification_tier}`;

export function toTool(m: ModuleView, a: ActionView): Tool {
  const output = a.output_schema as Record<string, unknown>;
  return {
    name: toolName(m.name, a.name),
    title: `${m.title}: ${a.name.replaceAll('_', ' ')}`,
    description: `${a.description} (module '${m.name}' — ${m.title}; ${trustNote(m)}; documentation: amp://modules/${m.name})`,
    inputSchema: a.input_schema as Tool['inputSchema'],
    // MCP output schemas describe structuredContent, which is always an object.
    ...(output.type === 'object' ? { outputSchema: output as Tool['outputSchema'] } : {}),
    // The module's definition as GET /api/v1/modules/{module} answers it, for a key policy's pins.
    _meta: { definition_hash: m.definition_hash },
  };
}

const encodeCursor = (after: string) => Buffer.from(`t:${after}`).toString('base64url');

function decodeCursor(cursor: string): string {
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!text.startsWith('t:') || encodeCursor(text.slice(2)) !== cursor) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
  return text.slice(2);
}

/**
 * The modules visible to the tenant within the connection's `?modules=`, each with only the
 * actions the key's policy lets it call; a module left with none is left out.
 */
export async function callableModules(svc: Services, principal: Principal, scope: ConnectionScope = {}): Promise<ModuleView[]> {
  const visible = await listAllModules(svc, principal);
  return visible.flatMap((m) => (inScope(scope, m.name) ? (withCallableActions(principal, m) ?? []) : []));
}

/**
 * tools/list: every action of every module visible to the tenant (the public catalog and its own
 * private modules), installed or not, that the key's policy lets it call, narrowed by the
 * connection's `?modules=`. The list is the same before and after calls and installs (not after
 * a policy change), so a client may cache it. Ordered by tool name; the cursor names the last
 * tool of the previous page, so a module published meanwhile neither repeats nor hides a tool of
 * the pages already read. `unknownModules`: names in `?modules=`
 * that are not visible modules.
 */
export async function listTools(
  svc: Services,
  principal: Principal,
  opts: { scope?: ConnectionScope; cursor?: string; pageSize?: number } = {},
): Promise<{ tools: Tool[]; nextCursor?: string; unknownModules: string[] }> {
  const scope = opts.scope ?? {};
  const after = opts.cursor === undefined ? undefined : decodeCursor(opts.cursor);
  const visible = await listAllModules(svc, principal);
  const known = new Set(visible.map((m) => m.name));
  const unknownModules = scope.modules ? [...scope.modules].filter((n) => !known.has(n)).map((n) => n.slice(0, 64)) : [];
  const all = visible
    .filter((m) => inScope(scope, m.name))
    .flatMap((m) => withCallableActions(principal, m)?.actions.map((a) => toTool(m, a)) ?? [])
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rest = after === undefined ? all : all.filter((t) => t.name > after);
  const pageSize = opts.pageSize ?? TOOLS_PAGE_SIZE;
  const tools = rest.slice(0, pageSize);
  return { tools, ...(rest.length > pageSize ? { nextCursor: encodeCursor(tools.at(-1)!.name) } : {}), unknownModules };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * tools/call: one execution through executeAction (source `mcp`). The output travels as JSON
 * text and, when it is an object, as structuredContent. Every AppError of the execution
 * (invalid_input, module_error, timeout, quota_exceeded, concurrency_limit_exceeded,
 * plan_required, policy_denied with its rule and reason, ...) is an `isError` result the model can read; an unknown tool is a protocol
 * error (-32602), as the MCP spec's tools/call section asks.
 */
export async function callTool(
  svc: Services,
  principal: Principal,
  name: string,
  args: Record<string, unknown> | undefined,
  requestId: string,
  scope: ConnectionScope = {},
): Promise<CallToolResult> {
  const target = parseToolName(name);
  // Outside the connection's ?modules= it is not one of this connection's tools.
  if (!target || !inScope(scope, target.module)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  // As REST refuses such input before the procedure runs (400 invalid_request): not an execution.
  const unstorable = findUnstorable(args ?? {});
  if (unstorable !== undefined) return toolError(unstorableInput(unstorable));
  try {
    const done = await executeAction(svc, principal, { ...target, input: args ?? {} }, { requestId, source: 'mcp' });
    const output = done.output ?? null;
    return {
      content: [{ type: 'text', text: JSON.stringify(output) }],
      ...(isPlainObject(output) ? { structuredContent: output } : {}),
      _meta: { [`${META_PREFIX}/execution_id`]: done.execution_id, [`${META_PREFIX}/latency_ms`]: done.latency_ms },
    };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code === 'not_found') throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return toolError(err);
  }
}

/** An AppError as the `isError` result a model reads: `{error, message, ...details}`. */
export function toolError(err: AppError): CallToolResult {
  const { execution, ...details } = err.details as { execution?: { execution_id: string } } & Record<string, unknown>;
  const retryAfter = err.headers['Retry-After'];
  const body = {
    error: err.code,
    message: err.message,
    ...details,
    ...(retryAfter && details.retry_after === undefined ? { retry_after: Number(retryAfter) } : {}),
    ...(execution ? { execution_id: execution.execution_id } : {}),
  };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

const RESOURCE_SCHEME = 'amp://modules/';
export const RESOURCE_TEMPLATE = `${RESOURCE_SCHEME}{module}`;

/**
 * resources/list: one Markdown document per visible module (within the connection's ?modules=)
 * of which the key's policy lets it call at least one action.
 */
export async function listResources(svc: Services, principal: Principal, scope: ConnectionScope = {}): Promise<Resource[]> {
  const modules = await callableModules(svc, principal, scope);
  return modules.map((m) => ({
    uri: `${RESOURCE_SCHEME}${m.name}`,
    name: m.name,
    title: m.title,
    description: m.description,
    mimeType: 'text/markdown',
  }));
}

/**
 * resources/read: `amp://modules/<name>` as Markdown, listing the actions the key's policy lets
 * it call; anything else (a module it may call nothing of included) is -32002.
 */
export async function readResource(
  svc: Services,
  principal: Principal,
  uri: string,
  scope: ConnectionScope = {},
): Promise<ReadResourceResult> {
  const name = uri.startsWith(RESOURCE_SCHEME) ? uri.slice(RESOURCE_SCHEME.length) : '';
  const notFound = () => new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });
  if (!moduleName.safeParse(name).success || !inScope(scope, name)) throw notFound();
  let module: ModuleView | undefined;
  try {
    module = withCallableActions(principal, await getModule(svc, principal, name));
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') throw notFound();
    throw err;
  }
  if (!module) throw notFound();
  return { contents: [{ uri, mimeType: 'text/markdown', text: moduleMarkdown(module) }] };
}

const json = (v: unknown) => ['```json', JSON.stringify(v, null, 2), '```'].join('\n');

/** The documentation of one module, generated from its record. */
export function moduleMarkdown(m: ModuleView): string {
  const lines = [
    `# ${m.title}`,
    '',
    m.description,
    '',
    `- Module: \`${m.name}\` (version ${m.version})`,
    `- Category: ${m.category}`,
    `- Publisher: ${m.publisher}`,
    ...(m.tags.length > 0 ? [`- Tags: ${m.tags.join(', ')}`] : []),
    `- Trust score: ${m.trust_score}; certification: ${m.certification_tier}`,
    `- Installed for this tenant: ${m.installed ? 'yes' : 'no (the first call installs it)'}`,
    '',
    '## Actions',
  ];
  for (const a of m.actions) {
    lines.push(
      '',
      `### ${a.name}`,
      '',
      a.description,
      '',
      `MCP tool: \`${toolName(m.name, a.name)}\`; REST: \`POST /api/v1/modules/${m.name}/execute\` with \`{"action": "${a.name}", "input": {...}}\`.`,
    );
    lines.push('', '**Input schema**', '', json(a.input_schema), '', '**Output schema**', '', json(a.output_schema));
    a.examples.forEach((ex, i) => {
      lines.push(
        '',
        a.examples.length > 1 ? `**Example ${i + 1}**` : '**Example**',
        '',
        'Input:',
        '',
        json(ex.input),
        '',
        'Output:',
        '',
        json(ex.output),
      );
    });
  }
  return `${lines.join('\n')}\n`;
}

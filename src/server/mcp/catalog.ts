/**
 * What /api/mcp shows of the catalog: module actions as MCP tools, module documentation as MCP
 * resources. Reads go through the catalog's own functions (listModules, getModule); tool calls
 * go through executeAction — there is no second implementation of visibility, installation,
 * validation, quota or recording here.
 */
import type { CallToolResult, ReadResourceResult, Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../auth/principal';
import { getModule, listModules } from '../../catalog/modules';
import type { presentModule } from '../../catalog/present';
import { actionName, moduleName } from '../../catalog/schema';
import { executeAction } from '../../executions/execute';
import type { Services } from '../../services';
import { AppError } from '../errors';

type ModuleView = ReturnType<typeof presentModule>;
type ActionView = ModuleView['actions'][number];

/** MCP's "resource not found" (spec: server/resources, "Error Handling"). */
export const RESOURCE_NOT_FOUND = -32002;

/** Where tools/list took its tools from (also reported in the result's `_meta`). */
export type ToolSource = 'installed' | 'catalog';
export const META_PREFIX = 'agent-module-platform';

/** Tool names LLM APIs accept (OpenAI, Anthropic): at most 64 of `[a-zA-Z0-9_-]`. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * `module__action`. Module names have no underscore and action names no double underscore
 * (DESIGN.md §4), so the first `__` splits a name unambiguously; 30 + 2 + 30 ≤ 64 characters.
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

/** Every module visible to the tenant (public ones and its own), or only the installed ones. */
async function allModules(svc: Services, principal: Principal, installed?: true): Promise<ModuleView[]> {
  const out: ModuleView[] = [];
  let cursor: string | undefined;
  do {
    const page = await listModules(svc, principal, { limit: 100, cursor, installed });
    out.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

function toTool(m: ModuleView, a: ActionView): Tool {
  const output = a.output_schema as Record<string, unknown>;
  return {
    name: toolName(m.name, a.name),
    title: `${m.title}: ${a.name.replaceAll('_', ' ')}`,
    description: `${a.description} (module '${m.name}' — ${m.title}; documentation: amp://modules/${m.name})`,
    inputSchema: a.input_schema as Tool['inputSchema'],
    // MCP output schemas describe structuredContent, which is always an object.
    ...(output.type === 'object' ? { outputSchema: output as Tool['outputSchema'] } : {}),
  };
}

/**
 * tools/list: the actions of the tenant's installed modules; when it has installed none, the
 * actions of every module visible to it (the public catalog and its own private modules).
 * Calling any visible tool works either way (and installs its module on first use).
 */
export async function listTools(svc: Services, principal: Principal): Promise<{ tools: Tool[]; source: ToolSource }> {
  const installed = await allModules(svc, principal, true);
  const source: ToolSource = installed.length > 0 ? 'installed' : 'catalog';
  const modules = source === 'installed' ? installed : await allModules(svc, principal);
  return { tools: modules.flatMap((m) => m.actions.map((a) => toTool(m, a))), source };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * tools/call: one execution through executeAction (source `mcp`). The output travels as JSON
 * text and, when it is an object, as structuredContent. Every AppError of the execution
 * (invalid_input, module_error, timeout, quota_exceeded, concurrency_limit_exceeded,
 * plan_required, ...) is an `isError` result the model can read; an unknown tool is a protocol
 * error (-32602), as the MCP spec's tools/call section asks.
 */
export async function callTool(
  svc: Services,
  principal: Principal,
  name: string,
  args: Record<string, unknown> | undefined,
  requestId: string,
): Promise<CallToolResult> {
  const target = parseToolName(name);
  if (!target) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
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

function toolError(err: AppError): CallToolResult {
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

/** resources/list: one Markdown document per visible module. */
export async function listResources(svc: Services, principal: Principal): Promise<Resource[]> {
  const modules = await allModules(svc, principal);
  return modules.map((m) => ({
    uri: `${RESOURCE_SCHEME}${m.name}`,
    name: m.name,
    title: m.title,
    description: m.description,
    mimeType: 'text/markdown',
  }));
}

/** resources/read: `amp://modules/<name>` as Markdown; anything else is -32002. */
export async function readResource(svc: Services, principal: Principal, uri: string): Promise<ReadResourceResult> {
  const name = uri.startsWith(RESOURCE_SCHEME) ? uri.slice(RESOURCE_SCHEME.length) : '';
  const notFound = () => new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });
  if (!moduleName.safeParse(name).success) throw notFound();
  let module: ModuleView;
  try {
    module = await getModule(svc, principal, name);
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') throw notFound();
    throw err;
  }
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
    lines.push('', `### ${a.name}`, '', a.description, '', `MCP tool: \`${toolName(m.name, a.name)}\`; REST: \`POST /api/v1/modules/${m.name}/execute\` with \`{"action": "${a.name}", "input": {...}}\`.`);
    lines.push('', '**Input schema**', '', json(a.input_schema), '', '**Output schema**', '', json(a.output_schema));
    a.examples.forEach((ex, i) => {
      lines.push('', a.examples.length > 1 ? `**Example ${i + 1}**` : '**Example**', '', 'Input:', '', json(ex.input), '', 'Output:', '', json(ex.output));
    });
  }
  return `${lines.join('\n')}\n`;
}

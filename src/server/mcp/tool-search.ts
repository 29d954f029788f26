/**
 * Tool search (`/api/mcp?tools=search`): instead of every tool, tools/list holds two —
 * `search_tools` finds tools with the catalog search, `call_tool` runs one by name. An agent
 * keeps two tool definitions in its context rather than hundreds, and loads the few it needs.
 * Both answer only what the key's policy lets it call; `call_tool` takes the path of tools/call.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import { searchCatalog } from '../../catalog/search';
import { SEARCH_MAX_LENGTH } from '../../contract/limits';
import type { Services } from '../../services';
import { AppError } from '../errors';
import { callableModules, toolError, toTool, type ConnectionScope } from './catalog';
import { parseArgs } from './arguments';

export const SEARCH_TOOLS = 'search_tools';
export const CALL_TOOL = 'call_tool';

/** The catalog search's largest page: hits the policy hides leave room for others. */
const SEARCH_DEPTH = 100;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;

const foundTool = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'The tool name to pass to call_tool' },
    title: { type: 'string' },
    description: { type: 'string' },
    inputSchema: { type: 'object', description: "JSON Schema of the tool's arguments" },
  },
  required: ['name', 'description', 'inputSchema'],
};

export const TOOL_SEARCH_TOOLS: Tool[] = [
  {
    name: SEARCH_TOOLS,
    title: 'Search tools',
    description:
      'Find tools by what they do (ranked full-text search over module and action names, titles, tags and descriptions; a word that begins a name matches it). Returns the best matches you may call, each with its name, description and input JSON Schema; run one with call_tool.',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: SEARCH_MAX_LENGTH,
          description: 'What the tool should do, e.g. "slug" or "hash text"',
        },
        limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `At most this many tools (default ${DEFAULT_LIMIT})` },
      },
      required: ['query'],
    },
    outputSchema: {
      type: 'object',
      properties: { query: { type: 'string' }, tools: { type: 'array', items: foundTool } },
      required: ['query', 'tools'],
    },
  },
  {
    name: CALL_TOOL,
    title: 'Call a tool',
    description:
      'Run one tool that search_tools returned, by its name, with its arguments (as its inputSchema describes). Answers what the tool answers; each call counts one execution.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'A tool name from search_tools, e.g. text__slugify' },
        arguments: { type: 'object', description: "The tool's arguments" },
      },
      required: ['name'],
    },
  },
];

export const isToolSearchTool = (name: string) => name === SEARCH_TOOLS || name === CALL_TOOL;

const searchArgs = z.strictObject({
  query: z.string().trim().min(1).max(SEARCH_MAX_LENGTH),
  limit: z.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
});
const callArgs = z.strictObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/**
 * search_tools: the catalog search's ranking, keeping only the actions this connection lists
 * (its `?modules=`, the key's policy), as the tools tools/list would show them.
 */
async function searchTools(svc: Services, principal: Principal, args: Record<string, unknown> | undefined, scope: ConnectionScope) {
  const { query, limit } = parseArgs(searchArgs, args);
  const [hits, modules] = await Promise.all([
    searchCatalog(svc, principal, { q: query, limit: SEARCH_DEPTH }),
    callableModules(svc, principal, scope),
  ]);
  const byName = new Map(modules.map((m) => [m.name, m]));
  const tools = hits.data.flatMap((hit) => {
    const module = byName.get(hit.module);
    const action = module?.actions.find((a) => a.name === hit.action);
    if (!module || !action) return [];
    const { name, title, description, inputSchema } = toTool(module, action);
    return [{ name, ...(title ? { title } : {}), description: description ?? '', inputSchema }];
  });
  return { query, tools: tools.slice(0, limit) };
}

/** The tools/call of a tool, as the connection answers it. */
export type RunTool = (name: string, args: Record<string, unknown> | undefined) => Promise<CallToolResult>;

/**
 * tools/call of `search_tools` or `call_tool`. `call_tool` hands the named tool to `runTool`,
 * the connection's own tools/call, so every rule of a direct call applies; a name that is no
 * tool is an `isError` result here (the model chose it), not a protocol error.
 */
export async function callToolSearchTool(
  svc: Services,
  principal: Principal,
  name: string,
  args: Record<string, unknown> | undefined,
  scope: ConnectionScope,
  runTool: RunTool,
): Promise<CallToolResult> {
  try {
    if (name === SEARCH_TOOLS) {
      const found = await searchTools(svc, principal, args, scope);
      return { content: [{ type: 'text', text: JSON.stringify(found) }], structuredContent: found };
    }
    const call = parseArgs(callArgs, args);
    return await runTool(call.name, call.arguments).catch((err: unknown) => {
      if (!(err instanceof McpError && err.code === ErrorCode.InvalidParams)) throw err;
      throw new AppError('not_found', `Unknown tool: ${call.name}. search_tools finds the tools you may call.`);
    });
  } catch (err) {
    if (err instanceof AppError && err.code !== 'internal_error') return toolError(err);
    throw err;
  }
}

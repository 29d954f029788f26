/**
 * One MCP server per HTTP request (the SDK's stateless mode: a transport serves one request),
 * bound to the request's authenticated principal.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../auth/principal';
import { holdsScope, type Scope } from '../../contract/scopes';
import type { Services } from '../../services';
import { VERSION } from '../../version';
import { errorDocUrl } from '../../contract/error-docs';
import { AppError } from '../errors';
import { callTool, listResources, listTools, META_PREFIX, readResource, RESOURCE_TEMPLATE, type ConnectionScope } from './catalog';
import { callToolSearchTool, isToolSearchTool, TOOL_SEARCH_TOOLS, type RunTool } from './tool-search';
import { callWorkflowTool, isWorkflowTool, withWorkflowTools } from './workflows';

export const SERVER_NAME = 'agent-module-platform';

/** JSON-RPC error code for a credential lacking the method's scope (server-defined range). */
export const INSUFFICIENT_SCOPE = -32003;

const INSTRUCTIONS = [
  'Agent Module Platform: every tool is one action of a module, named `<module>__<action>`;',
  'each tools/call runs it once and counts one execution against the monthly quota.',
  'tools/list lists every action visible to you (the public catalog and your own private modules) that your API key may call, whether or not its module is installed,',
  'and the list does not change as you call tools; the first call of a tool installs its module.',
  'Connect to /api/mcp?modules=<module>,<module> to see only those modules,',
  'or to /api/mcp?tools=search for two tools instead of all: search_tools to find tools, call_tool to run one.',
  'Module documentation (actions, schemas, examples): the resources amp://modules/<module> (text/markdown).',
].join(' ');

const TOOL_SEARCH_INSTRUCTIONS = [
  'Agent Module Platform, tool search: this connection lists two tools.',
  'search_tools {query, limit?} finds the tools you may call (name, description, input schema);',
  'call_tool {name, arguments} runs one of them by name, once, counting one execution against the monthly quota.',
  'Module documentation (actions, schemas, examples): the resources amp://modules/<module> (text/markdown).',
].join(' ');

/** Which scope each MCP method needs (ping and notifications need none). */
export function scopeFor(method: string): Scope | undefined {
  if (method === 'tools/call') return 'modules:execute';
  if (method === 'initialize' || method === 'tools/list' || method.startsWith('resources/')) return 'modules:read';
  return undefined;
}

/**
 * The request schemas of the methods this server answers. The SDK parses params inside its
 * dispatcher and reports a mismatch as -32603 with the raw validator output; checked here first,
 * a mismatch is the JSON-RPC -32602 "Invalid params" it is.
 */
const REQUEST_SCHEMAS = new Map<
  string,
  { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }
>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['resources/list', ListResourcesRequestSchema],
  ['resources/templates/list', ListResourceTemplatesRequestSchema],
  ['resources/read', ReadResourceRequestSchema],
]);

/** Why a request's params do not fit its method, if they do not. */
function invalidParams(message: JSONRPCRequest): string | undefined {
  const parsed = REQUEST_SCHEMAS.get(message.method)?.safeParse(message);
  if (!parsed || parsed.success) return undefined;
  const issue = parsed.error?.issues[0];
  const path = issue?.path
    .filter((p) => p !== 'params')
    .map(String)
    .join('.');
  return `Invalid params for ${message.method}: ${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'}`;
}

export function createMcpServer(svc: Services, principal: Principal, requestId: string, scope: ConnectionScope = {}): Server {
  const server = new Server(
    { name: SERVER_NAME, title: 'Agent Module Platform', version: VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: scope.toolSearch ? TOOL_SEARCH_INSTRUCTIONS : INSTRUCTIONS },
  );

  /** tools/call of one of the connection's normal tools (what tools/list holds without ?tools=search). */
  const runTool: RunTool = (name, args) =>
    isWorkflowTool(name) && !scope.modules
      ? callWorkflowTool(svc, principal, name, args, requestId)
      : callTool(svc, principal, name, args, requestId, scope);

  server.setRequestHandler(
    ListToolsRequestSchema,
    guarded(svc, requestId, async (req) => {
      if (scope.toolSearch) {
        if (req.params?.cursor) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
        return { tools: TOOL_SEARCH_TOOLS };
      }
      const { tools, nextCursor, unknownModules } = await listTools(svc, principal, { scope, cursor: req.params?.cursor });
      return {
        tools: await withWorkflowTools(svc, principal, tools, req.params?.cursor, scope),
        ...(nextCursor ? { nextCursor } : {}),
        ...(unknownModules.length > 0 ? { _meta: { [`${META_PREFIX}/unknown_modules`]: unknownModules } } : {}),
      };
    }),
  );
  server.setRequestHandler(
    CallToolRequestSchema,
    guarded(svc, requestId, async (req) => {
      const { name, arguments: args } = req.params;
      if (!scope.toolSearch) return runTool(name, args);
      if (!isToolSearchTool(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      return callToolSearchTool(svc, principal, name, args, scope, runTool);
    }),
  );
  server.setRequestHandler(
    ListResourcesRequestSchema,
    guarded(svc, requestId, async () => ({ resources: await listResources(svc, principal, scope) })),
  );
  server.setRequestHandler(
    ListResourceTemplatesRequestSchema,
    guarded(svc, requestId, async () => ({
      resourceTemplates: [
        { uriTemplate: RESOURCE_TEMPLATE, name: 'module-documentation', title: 'Module documentation', mimeType: 'text/markdown' },
      ],
    })),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    guarded(svc, requestId, (req) => readResource(svc, principal, req.params.uri, scope)),
  );
  server.onerror = (err) => svc.logger.debug({ err, requestId }, 'mcp protocol error');
  return server;
}

/**
 * Domain errors outside tools/call become JSON-RPC errors; anything unexpected is logged and
 * answered as a generic -32603 (the SDK would otherwise send the raw exception message).
 */
function guarded<A extends unknown[], R>(svc: Services, requestId: string, fn: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    try {
      return await fn(...args);
    } catch (err) {
      if (err instanceof McpError) throw err;
      if (err instanceof AppError && err.code !== 'internal_error') {
        const code = err.code === 'invalid_request' || err.code === 'not_found' ? ErrorCode.InvalidParams : ErrorCode.InternalError;
        throw new McpError(code, err.message, {
          error: err.code,
          ...err.details,
          doc_url: errorDocUrl(svc.config.publicBaseUrl, err.code),
        });
      }
      svc.logger.error({ err, requestId }, 'mcp request failed');
      throw new McpError(ErrorCode.InternalError, 'An internal error occurred.', {
        error: 'internal_error',
        request_id: requestId,
        doc_url: errorDocUrl(svc.config.publicBaseUrl, 'internal_error'),
      });
    }
  };
}

/**
 * Connects the server to the transport behind a gate (in this order: scope, then
 * validation): a JSON-RPC request whose method needs a scope the credential lacks is answered
 * with INSUFFICIENT_SCOPE, one whose params do not fit with -32602; neither reaches a handler.
 * (A gate on the transport, because the SDK's own `initialize` handler has no hook.)
 */
export async function connectWithScopes(
  server: Server,
  transport: Transport,
  principal: Principal,
  requestId: string,
  publicBaseUrl: string,
): Promise<void> {
  await server.connect(transport);
  // McpError's constructor writes "MCP error <code>: " into its message, and the SDK sends that
  // message as is; clients add the same prefix again ("MCP error -32602: MCP error -32602: Unknown
  // tool"). The wire carries the message alone, like every other error this server answers.
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(withoutCodePrefix(message), options);
  const dispatch = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if (isJSONRPCRequest(message)) {
      const refuse = (error: { code: number; message: string; data?: Record<string, unknown> }) =>
        void transport.send({ jsonrpc: '2.0', id: message.id, error }).catch((err: unknown) => server.onerror?.(err as Error));
      const scope = scopeFor(message.method);
      if (scope && !holdsScope(principal.scopes, scope)) {
        return refuse({
          code: INSUFFICIENT_SCOPE,
          message: `This operation needs the scope '${scope}'.`,
          data: {
            error: 'insufficient_scope',
            required_scope: scope,
            request_id: requestId,
            doc_url: errorDocUrl(publicBaseUrl, 'insufficient_scope'),
          },
        });
      }
      const invalid = invalidParams(message);
      if (invalid) return refuse({ code: ErrorCode.InvalidParams, message: invalid });
    }
    dispatch(message, extra);
  };
}

/** An error response whose message does not repeat its code (see connectWithScopes). */
export function withoutCodePrefix(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message)) return message;
  const prefix = `MCP error ${message.error.code}: `;
  return message.error.message.startsWith(prefix)
    ? { ...message, error: { ...message.error, message: message.error.message.slice(prefix.length) } }
    : message;
}

import { z } from 'zod';
import { principalTerms, type Principal } from '../auth/principal';
import { agentId } from '../memory/schema';
import { holdsScope } from '../contract/scopes';
import { withCallableActions } from '../catalog/callable';
import { listAllModules } from '../catalog/modules';
import { searchCatalog } from '../catalog/search';
import { cycleStart, nextCycleStart } from '../metering/cycle';
import { consumeRequest } from '../metering/requests';
import { executionsUsed } from '../metering/usage';
import type { Services } from '../services';
import { PLANS, publicLimits } from '../tenants/plans';

export const armInput = z.strictObject({
  agent_id: agentId.optional(),
  format: z.enum(['openai', 'anthropic', 'mcp']).default('openai'),
  query: z.string().trim().min(1).max(200).optional(),
});

/** Tool names as LLM APIs accept them: `^[a-zA-Z0-9_-]+$`, at most 64 characters. */
export function toolName(module: string, action: string): string {
  return `${module}__${action}`.slice(0, 64);
}

interface ToolSource {
  module: string;
  title: string;
  action: string;
  description: string;
  inputSchema: Record<string, unknown>;
  trustScore: number;
  certificationTier: string;
}

const trustOf = (m: { trust_score: number; certification_tier: string }) => ({
  trustScore: m.trust_score,
  certificationTier: m.certification_tier,
});

function formatTool(t: ToolSource, format: 'openai' | 'anthropic' | 'mcp') {
  const name = toolName(t.module, t.action);
  const description = `${t.title}: ${t.description} (trust score ${t.trustScore}/100, certification ${t.certificationTier})`.slice(0, 1024);
  if (format === 'openai') return { type: 'function', function: { name, description, parameters: t.inputSchema } };
  if (format === 'anthropic') return { name, description, input_schema: t.inputSchema };
  return { name, description, inputSchema: t.inputSchema };
}

/** At most this many tools answer a query. */
const QUERY_TOOLS = 50;

/**
 * Every module visible to the tenant (the whole catalog: its first page alone would drop
 * installed modules and query hits whose names sort past the 100th), with only the actions the
 * key's policy lets it call; a module left with none is left out.
 */
async function callableModules(svc: Services, principal: Principal) {
  const modules = await listAllModules(svc, principal);
  return modules.flatMap((m) => withCallableActions(principal, m) ?? []);
}

/**
 * POST /api/v1/agent/arm: everything an agent needs in one call — who it is, its plan, limits,
 * usage and rate limit, and tools in the asked format: the actions matching `query`, else the
 * installed modules' actions, else every visible action — only those the key's policy lets it call.
 */
export async function armAgent(svc: Services, principal: Principal, input: z.infer<typeof armInput>) {
  const modules = await callableModules(svc, principal);
  const byName = new Map(modules.map((m) => [m.name, m]));
  let source: 'query' | 'installed' | 'all';
  let tools: ToolSource[];
  if (input.query) {
    source = 'query';
    // With a policy, more hits are read so that those it hides leave room for others.
    const hits = await searchCatalog(svc, principal, { q: input.query, limit: principal.policy ? 100 : QUERY_TOOLS });
    tools = hits.data
      .flatMap((h) => {
        const m = byName.get(h.module);
        const action = m?.actions.find((a) => a.name === h.action);
        return m && action
          ? [
              {
                ...trustOf(m),
                module: h.module,
                title: h.title,
                action: h.action,
                description: action.description,
                inputSchema: action.input_schema,
              },
            ]
          : [];
      })
      .slice(0, QUERY_TOOLS);
  } else {
    const installed = modules.filter((m) => m.installed);
    source = installed.length > 0 ? 'installed' : 'all';
    tools = (installed.length > 0 ? installed : modules).flatMap((m) =>
      m.actions.map((a) => ({
        ...trustOf(m),
        module: m.name,
        title: m.title,
        action: a.name,
        description: a.description,
        inputSchema: a.input_schema,
      })),
    );
  }
  const quota = principalTerms(principal).executionsPerMonth;
  const [used, pool] = await Promise.all([executionsUsed(svc.db, principal.tenantId), consumeRequest(svc, principal, true)]);
  const base = svc.config.publicBaseUrl;
  // The MCP connection for these tools: narrowed to their modules (the query's hits, or the
  // installed modules), or every visible module when the tools are the whole catalog.
  const toolModules = source === 'all' ? [] : [...new Set(tools.map((t) => t.module))];
  return {
    tenant: { tenant_id: principal.tenantId, plan: principal.plan },
    plan: principal.plan,
    limits: {
      ...publicLimits(principal.plan),
      executions_per_month: quota,
      requests_per_minute: pool.limit,
      concurrency: PLANS[principal.plan].concurrency,
    },
    usage: {
      cycle_start: cycleStart(),
      executions_used: used,
      executions_remaining: quota === null ? null : Math.max(0, quota - used),
      reset_at: nextCycleStart().toISOString(),
    },
    rate_limit: { limit: pool.limit, remaining: pool.remaining, reset_at: new Date(pool.resetAt).toISOString() },
    format: input.format,
    tool_source: source,
    tools: tools.map((t) => formatTool(t, input.format)),
    // For MCP clients: the server URL whose tools/list holds exactly these tools' modules
    // (`/api/mcp` alone lists every visible action).
    ...(input.format === 'mcp'
      ? {
          mcp: {
            url: toolModules.length > 0 ? `${base}/api/mcp?modules=${toolModules.join(',')}` : `${base}/api/mcp`,
            transport: 'streamable-http',
            modules: toolModules,
            all_modules_url: `${base}/api/mcp`,
          },
        }
      : {}),
    endpoints: {
      execute: `${base}/api/v1/modules/{module}/execute`,
      batch: `${base}/api/v1/batch`,
      chain: `${base}/api/v1/chain`,
      search: `${base}/api/v1/catalog/search`,
      memory: `${base}/api/v1/memory`,
      mcp: `${base}/api/mcp`,
      openapi: `${base}/api/openapi.json`,
      llms: `${base}/api/llms.txt`,
    },
    memory: {
      agent_id: input.agent_id ?? null,
      endpoint: `${base}/api/v1/memory`,
      can_read: holdsScope(principal.scopes, 'memory:read'),
      can_write: holdsScope(principal.scopes, 'memory:write'),
    },
    tool_call:
      'Call a tool named `module__action` with POST /api/v1/modules/{module}/execute and body {"action": "<action>", "input": <arguments>}.',
  };
}

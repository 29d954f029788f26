import { listMemoryAgents } from '../../memory/agents';
import { deleteMemory } from '../../memory/delete';
import { getMemory, listMemory } from '../../memory/read';
import {
  deletedMemoryEntry,
  listMemoryAgentsInput,
  listMemoryInput,
  memoryAgentList,
  memoryEntryInput,
  memoryEntryView,
  memoryList,
  upsertMemoryInput,
} from '../../memory/schema';
import { upsertMemory } from '../../memory/upsert';
import { apiProcedure, router } from '../trpc';

const tags = ['memory'];

export const memoryRouter = router({
  upsert: apiProcedure('memory:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/memory',
        tags,
        summary: 'Set a memory entry',
        description:
          "Creates (201) or replaces (200) the entry `key` of agent `agent_id`. The body replaces the whole entry: omitted `tags` mean none, an omitted `ttl_seconds` means it never expires. `value` is any JSON up to 65,536 bytes serialized (else 400). Creating past the plan's entry limit (free 1,000, pro 50,000, business 500,000, enterprise unlimited; all agents together) is 403 `plan_required`; replacing an entry always works.",
        errorResponses: {
          400: 'Invalid body or value too large',
          403: "Keeping more memory entries than the plan's limit (`plan_required`)",
        },
      },
      successStatus: 201,
      alsoAnswers: { 200: 'Replaced an existing entry' },
    })
    .input(upsertMemoryInput)
    .output(memoryEntryView)
    .mutation(async ({ ctx, input }) => {
      const result = await upsertMemory(ctx.svc, ctx.principal, input);
      ctx.res.status = result.status;
      return result.body;
    }),

  list: apiProcedure('memory:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/memory',
        tags,
        summary: 'List or search memory entries',
        description:
          "One agent's entries, newest-updated first. `q` searches keys and values (full text, web-search syntax, no stemming); `tag` keeps entries carrying that tag. Expired entries are never returned.",
        errorResponses: { 400: 'Invalid query' },
      },
    })
    .input(listMemoryInput)
    .output(memoryList)
    .query(({ ctx, input }) => listMemory(ctx.svc, ctx.principal, input)),

  agents: apiProcedure('memory:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/memory/agents',
        tags,
        summary: 'List the agents that have memory',
        description:
          "The tenant's agents with live (unexpired) entries, most recently updated first, each with its entry count and the time one of its entries last changed; at most `limit` (100), `has_more` when there are others.",
        errorResponses: { 400: 'Invalid query' },
      },
    })
    .input(listMemoryAgentsInput)
    .output(memoryAgentList)
    .query(({ ctx, input }) => listMemoryAgents(ctx.svc, ctx.principal, input)),

  get: apiProcedure('memory:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/memory/{agent_id}/{key}',
        tags,
        summary: 'Get a memory entry',
        description: 'URL-encode the key. An absent or expired entry is 404.',
        errorResponses: {
          400: 'Invalid agent id or key',
          404: 'No such entry',
        },
      },
    })
    .input(memoryEntryInput)
    .output(memoryEntryView)
    .query(({ ctx, input }) => getMemory(ctx.svc, ctx.principal, input)),

  delete: apiProcedure('memory:write')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/memory/{agent_id}/{key}',
        tags,
        summary: 'Delete a memory entry',
        description: 'URL-encode the key. An absent or expired entry is 404.',
        errorResponses: {
          400: 'Invalid agent id or key',
          404: 'No such entry',
        },
      },
    })
    .input(memoryEntryInput)
    .output(deletedMemoryEntry)
    .mutation(({ ctx, input }) => deleteMemory(ctx.svc, ctx.principal, input)),
});

import { z } from 'zod';
import { listParams, pageSchema, queryInteger } from '../lib/pagination';

/** 64 KB, 65,536 bytes (docs/decisions.md, Wire conventions), measured as UTF-8 JSON. */
export const MAX_VALUE_BYTES = 65_536;
export const MAX_TTL_SECONDS = 31_536_000;

export const agentId = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'Agent ids are 1–128 characters: A-Z, a-z, 0-9, . _ : -')
  .describe('The agent whose memory this is (1–128 characters: `A-Za-z0-9._:-`).');

export const memoryKey = z.string().min(1).max(256).describe('Entry key, 1–256 characters, unique per agent. URL-encode it in paths.');

// Text PostgreSQL cannot store (U+0000, unpaired surrogates) is refused for every procedure's
// input in the procedure chain (src/server/trpc.ts), so these schemas need not repeat it.
const tag = z.string().min(1).max(64);

export const memoryValue = z
  .unknown()
  .superRefine((v, ctx) => {
    if (v === undefined) {
      ctx.addIssue({ code: 'custom', message: 'Required: any JSON value' });
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(v), 'utf8');
    if (bytes > MAX_VALUE_BYTES) {
      ctx.addIssue({ code: 'custom', message: `The value is ${bytes} bytes as JSON; at most ${MAX_VALUE_BYTES} (64 KiB) are allowed` });
    }
  })
  .describe('Any JSON value, at most 65,536 bytes serialized.');

export const upsertMemoryInput = z.strictObject({
  agent_id: agentId,
  key: memoryKey,
  value: memoryValue,
  tags: z.array(tag).max(20).optional().describe('Up to 20 tags of 1–64 characters (duplicates removed). Omitted: no tags.'),
  ttl_seconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_TTL_SECONDS)
    .optional()
    .describe('Seconds until the entry expires (1–31536000). Omitted: it never expires.'),
});

export const memoryEntryInput = z.strictObject({ agent_id: agentId, key: memoryKey });

export const listMemoryInput = z.strictObject({
  agent_id: agentId,
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Full-text search over keys and values (web-search syntax: "phrases", or, -not).'),
  tag: tag.optional().describe('Only entries carrying this tag.'),
  ...listParams,
});

export const memoryEntryView = z
  .object({
    agent_id: z.string(),
    key: z.string(),
    value: z.unknown(),
    tags: z.array(z.string()),
    expires_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'MemoryEntry' });

export const memoryList = pageSchema(memoryEntryView);

export const deletedMemoryEntry = z
  .object({ agent_id: z.string(), key: z.string(), deleted: z.literal(true) })
  .meta({ id: 'DeletedMemoryEntry' });

export const listMemoryAgentsInput = z.strictObject({
  limit: queryInteger(1, 100, 100).describe('At most this many agents (default and max 100)'),
});

export const memoryAgentList = z.object({
  data: z.array(
    z
      .object({
        agent_id: z.string(),
        entries: z.number().int().describe('Live (unexpired) entries of the agent'),
        last_updated_at: z.string().nullable().describe('When one of its entries last changed'),
      })
      .meta({ id: 'MemoryAgent' }),
  ),
  has_more: z.boolean().describe('More agents have entries than were returned'),
});

export type ListMemoryAgentsInput = z.infer<typeof listMemoryAgentsInput>;
export type UpsertMemoryInput = z.infer<typeof upsertMemoryInput>;
export type ListMemoryInput = z.infer<typeof listMemoryInput>;
export type MemoryEntryInput = z.infer<typeof memoryEntryInput>;

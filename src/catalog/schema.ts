import { z } from 'zod';
import { listParams } from '../lib/pagination';

export const moduleName = z.string().regex(/^[a-z][a-z0-9-]{1,29}$/, 'Module names are 2–30 characters: a-z, 0-9 and -, starting with a letter');
export const actionName = z
  .string()
  .max(30)
  .regex(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, 'Action names are snake_case, at most 30 characters');

const jsonObject = z.record(z.string(), z.unknown());

export const actionView = z.object({
  name: z.string(),
  description: z.string(),
  input_schema: jsonObject,
  output_schema: jsonObject,
  examples: z.array(z.object({ input: z.unknown(), output: z.unknown() })),
});

export const moduleView = z.object({
  name: z.string(),
  version: z.string(),
  title: z.string(),
  description: z.string(),
  category: z.string(),
  tags: z.array(z.string()),
  publisher: z.string(),
  visibility: z.enum(['public', 'private']),
  runtime: z.enum(['builtin', 'http', 'javascript']),
  actions: z.array(actionView),
  trust_score: z.number().int(),
  certification_tier: z.string(),
  installed: z.boolean(),
});

const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

export const listModulesInput = z.strictObject({
  ...listParams,
  category: z.string().max(40).optional(),
  installed: booleanQuery.optional(),
});

export const moduleList = z.object({
  data: z.array(moduleView),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  total: z.number().int(),
});

export const moduleInput = z.strictObject({ module: moduleName });

export const installationView = z.object({
  module: z.string(),
  installed: z.boolean(),
  installed_at: z.string().nullable(),
});

export const searchInput = z.strictObject({
  q: z.string().trim().min(1).max(200),
  category: z.string().max(40).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const searchOutput = z.object({
  query: z.string(),
  total: z.number().int(),
  data: z.array(
    z.object({ module: z.string(), action: z.string(), title: z.string(), description: z.string(), score: z.number() }),
  ),
});

export const directoryInput = z.strictObject({ ...listParams, category: z.string().max(40).optional() });

export const directoryOutput = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      module: z.string(),
      action: z.string(),
      description: z.string(),
      input_schema: jsonObject,
      trust_score: z.number().int(),
      certification_tier: z.string(),
    }),
  ),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  total: z.number().int(),
});

export type ListModulesInput = z.infer<typeof listModulesInput>;
export type SearchInput = z.infer<typeof searchInput>;
export type DirectoryInput = z.infer<typeof directoryInput>;

import { z } from 'zod';
import { SEARCH_MAX_LENGTH } from '../contract/limits';
import { DEFINITION_HASH } from './definition-hash';
import { listParams, queryInteger } from '../lib/pagination';
import { MODULE_CATEGORIES } from '../modules/types';

export const MODULE_NAME = /^[a-z][a-z0-9-]{1,29}$/;
/** Action names; at most 30 characters besides. */
export const ACTION_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** A module name in a body (publishing, batch, chain): one that cannot exist is a 400. */
export const moduleName = z.string().regex(MODULE_NAME, 'Module names are 2–30 characters: a-z, 0-9 and -, starting with a letter');
export const actionName = z.string().max(30).regex(ACTION_NAME, 'Action names are snake_case, at most 30 characters');

/**
 * A module name in a path (`/modules/{module}`, install, execute): any string, because a name
 * that cannot exist does not exist (404 `not_found`, whatever its length or characters).
 */
export const moduleNameInPath = z.string();

const jsonObject = z.record(z.string(), z.unknown());

export const actionView = z
  .object({
    name: z.string(),
    description: z.string(),
    input_schema: jsonObject,
    output_schema: jsonObject,
    examples: z.array(z.object({ input: z.unknown(), output: z.unknown() })),
  })
  .meta({ id: 'Action' });

export const moduleView = z
  .object({
    name: z.string(),
    version: z.string(),
    definition_hash: z
      .string()
      .regex(DEFINITION_HASH)
      .describe(
        "The module's definition as it is now, `sha256:<hex>`: any change to its version, description, runtime or actions (descriptions, schemas, timeouts) gives another hash. Pass it as `definition_hash` to execute, or pin it in a key's policy, so that a call is refused once the module has changed.",
      ),
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
  })
  .meta({ id: 'Module' });

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

/** A call's optional `definition_hash`: the module definition it expects (src/executions/definition-pin.ts). */
export const pinnedDefinitionHash = z
  .string()
  .regex(DEFINITION_HASH, 'A definition hash is sha256: and 64 hex digits')
  .optional()
  .describe(
    "The module's `definition_hash` as the caller last read it (GET /api/v1/modules/{module}): when the module's definition is another by now, the call is refused with 403 `policy_denied` (`rule: definition_hash`, `reason: definition_changed`) before anything runs or is counted.",
  );

export const moduleInput = z.strictObject({ module: moduleNameInPath });

export const installationView = z
  .object({
    module: z.string(),
    installed: z.boolean(),
    installed_at: z.string().nullable(),
  })
  .meta({ id: 'Installation' });

export const searchInput = z.strictObject({
  q: z.string().trim().min(1).max(SEARCH_MAX_LENGTH),
  category: z.string().max(40).optional(),
  limit: queryInteger(1, 100, 20),
});

export const searchOutput = z.object({
  query: z.string(),
  total: z.number().int(),
  data: z.array(
    z
      .object({
        module: z.string(),
        action: z.string(),
        title: z.string(),
        description: z.string(),
        trust_score: z.number().int(),
        certification_tier: z.string(),
        score: z.number().describe('Relevance; among equally relevant results the higher trust score comes first'),
      })
      .meta({ id: 'SearchResult' }),
  ),
});

export const directoryInput = z.strictObject({ ...listParams, category: z.string().max(40).optional() });

export const directoryOutput = z.object({
  data: z.array(
    z
      .object({
        id: z.string(),
        module: z.string(),
        action: z.string(),
        description: z.string(),
        input_schema: jsonObject,
        trust_score: z.number().int(),
        certification_tier: z.string(),
      })
      .meta({ id: 'DirectoryEntry' }),
  ),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  total: z.number().int(),
});

export type ListModulesInput = z.infer<typeof listModulesInput>;
export type SearchInput = z.infer<typeof searchInput>;
export type DirectoryInput = z.infer<typeof directoryInput>;

// ---------------------------------------------------------------------------------------------
// Publishing (POST /api/v1/modules, PUT /api/v1/modules/{module})
// ---------------------------------------------------------------------------------------------

/** semver.org's regular expression (MAJOR.MINOR.PATCH, optional pre-release and build). */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** 100 KB = 102,400 bytes (KB are 1,024 bytes: docs/decisions.md, Wire conventions). */
export const MAX_JS_SOURCE_BYTES = 100 * 1024;

const semver = z.string().max(64).regex(SEMVER, 'Must be a semantic version, e.g. 1.0.0');

export const publishedActionInput = z.strictObject({
  name: actionName,
  description: z.string().trim().min(1).max(1000),
  input_schema: jsonObject.describe('JSON Schema (draft 2020-12) of the input; its top-level `type` must be `object`.'),
  output_schema: jsonObject.describe('JSON Schema (draft 2020-12) of the output.'),
  examples: z
    .array(z.strictObject({ input: jsonObject, output: z.unknown() }))
    .min(1)
    .max(10)
    .describe('At least one; each input must match input_schema and each output output_schema.'),
  timeout_ms: z.number().int().min(100).max(30_000).optional().describe('Deadline of one execution, 100–30000 ms (default 10000).'),
});

export const moduleRuntimeInput = z.discriminatedUnion('type', [
  z
    .strictObject({
      type: z.literal('http'),
      endpoint: z.string().max(2048).describe('Public https URL the platform POSTs `{action, input}` to, signed (see docs/publishing.md).'),
      secret: z
        .string()
        .min(16)
        .max(256)
        .optional()
        .describe(
          'HMAC-SHA256 signing secret; generated (`msec_…`) when absent. Stored encrypted; returned only as `signing_secret` in the response that set it.',
        ),
    })
    .describe('The platform calls the publisher’s endpoint.'),
  z
    .strictObject({
      type: z.literal('javascript'),
      source: z
        .string()
        .min(1)
        .refine((s) => Buffer.byteLength(s) <= MAX_JS_SOURCE_BYTES, 'The source must be at most 100 KB (102,400 bytes)')
        .describe('A script defining `function handle(action, input)` that returns the output (see docs/publishing.md). At most 100 KB.'),
    })
    .describe('Source run in a QuickJS sandbox: no network, no host access.'),
]);

/**
 * A title or tag is one line: discovery documents (llms.txt, the agent card, MCP tool titles)
 * show it inline, where a line break or another control character would start a new heading or
 * list item of the publisher's making.
 */
const oneLine = (max: number) =>
  z.string().trim().min(1).max(max).refine(isOneLine, 'Must be one line: no line breaks or other control characters');

/** No C0 or C1 control character (line feed, tab, NUL, ...) and no Unicode line or paragraph separator. */
function isOneLine(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029) return false;
  }
  return true;
}

const publishFields = {
  version: semver,
  title: oneLine(100),
  description: z.string().trim().min(1).max(2000),
  category: z.enum(MODULE_CATEGORIES),
  tags: z.array(oneLine(40)).max(20),
  visibility: z
    .enum(['private', 'public'])
    .describe('`private` (default): visible to the publishing tenant only; `public`: to every tenant.'),
  runtime: moduleRuntimeInput,
  actions: z.array(publishedActionInput).min(1).max(50),
};

export const publishModuleInput = z.strictObject({
  name: moduleName,
  ...publishFields,
  tags: publishFields.tags.default([]),
  visibility: publishFields.visibility.default('private'),
});

export const updateModuleInput = z.strictObject({
  module: moduleNameInPath,
  version: publishFields.version.optional(),
  title: publishFields.title.optional(),
  description: publishFields.description.optional(),
  category: publishFields.category.optional(),
  tags: publishFields.tags.optional(),
  visibility: publishFields.visibility.optional(),
  runtime: publishFields.runtime.optional(),
  actions: publishFields.actions.optional().describe('Replaces all actions when given.'),
});

export const publishedModuleView = moduleView
  .extend({
    signing_secret: z
      .string()
      .optional()
      .describe(
        'http runtime: the signing secret, present only in the response that set it (publish, or an update that set a new one). Store it: it is never shown again.',
      ),
  })
  .meta({ id: 'PublishedModule' });

export type PublishModuleInput = z.infer<typeof publishModuleInput>;
export type UpdateModuleInput = z.infer<typeof updateModuleInput>;
export type PublishedActionInput = z.infer<typeof publishedActionInput>;
export type ModuleRuntimeInput = z.infer<typeof moduleRuntimeInput>;

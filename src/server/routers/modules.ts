import { z } from 'zod';
import { installModule, uninstallModule } from '../../catalog/install';
import { getModule, listModules } from '../../catalog/modules';
import { publishModule, updateModule } from '../../catalog/publish';
import {
  actionName,
  installationView,
  pinnedDefinitionHash,
  listModulesInput,
  moduleInput,
  moduleList,
  moduleNameInPath,
  moduleView,
  publishedModuleView,
  publishModuleInput,
  updateModuleInput,
} from '../../catalog/schema';
import { executeAction } from '../../executions/execute';
import { markTrusted } from '../../lib/checked-output';
import { describeModuleLimits } from '../../tenants/plans';
import { apiProcedure, router, skipsChecked } from '../trpc';

const tags = ['modules'];

export const executeInput = z.strictObject({
  module: moduleNameInPath,
  action: actionName,
  input: z.record(z.string(), z.unknown()).default({}),
  definition_hash: pinnedDefinitionHash,
});

export const executeOutput = z
  .object({
    execution_id: z.string(),
    module: z.string(),
    action: z.string(),
    status: z.literal('success'),
    output: z.unknown(),
    latency_ms: z.number().int(),
    request_id: z.string(),
  })
  .meta({ id: 'ExecutionResult' });

export const modulesRouter = router({
  list: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/modules',
        tags,
        summary: 'List modules',
        description: 'Modules visible to the tenant (public ones and its own), by name, with their actions. Exempt from the request limit.',
        errorResponses: { 400: 'Invalid query' },
      },
      rateLimitExempt: true,
    })
    .input(listModulesInput)
    .output(skipsChecked(moduleList))
    .query(({ ctx, input }) => listModules(ctx.svc, ctx.principal, input)),

  get: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/modules/{module}',
        tags,
        summary: 'Get a module',
        description:
          'A module visible to the tenant (public, or its own), with its actions, their JSON Schemas and examples, and whether it is installed.',
        errorResponses: {
          400: 'Invalid module name',
          404: 'No such module',
        },
      },
    })
    .input(moduleInput)
    .output(skipsChecked(moduleView))
    .query(({ ctx, input }) => getModule(ctx.svc, ctx.principal, input.module)),

  install: apiProcedure('modules:install')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/modules/{module}/install',
        tags,
        summary: 'Install a module',
        description: `201 when installed now (event \`module.installed\`), 200 when it already was. Past the plan's module limit (${describeModuleLimits()}): 403 \`plan_required\`.`,
        errorResponses: {
          403: "The plan's module limit is reached (`plan_required`)",
          404: 'No such module',
        },
      },
      successStatus: 201,
      alsoAnswers: { 200: 'Already installed: the existing installation; no event' },
    })
    .input(moduleInput)
    .output(installationView)
    .mutation(async ({ ctx, input }) => {
      const result = await installModule(ctx.svc, ctx.principal, input.module);
      ctx.res.status = result.status;
      return result.body;
    }),

  uninstall: apiProcedure('modules:install')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/modules/{module}/install',
        tags,
        summary: 'Uninstall a module',
        description: 'Event `module.uninstalled`. A module that is not installed is 404.',
        errorResponses: { 404: 'Not installed' },
      },
    })
    .input(moduleInput)
    .output(installationView.extend({ uninstalled_at: z.string() }))
    .mutation(({ ctx, input }) => uninstallModule(ctx.svc, ctx.principal, input.module)),

  execute: apiProcedure('modules:execute')
    .meta({
      claimsSlot: true,
      openapi: {
        method: 'POST',
        path: '/api/v1/modules/{module}/execute',
        tags,
        summary: 'Execute a module action',
        description:
          "Runs one action; installs the module on first use. Counts one execution. Failures are recorded executions: 422 `invalid_input` (input does not match `input_schema`), 502 `module_error`, 504 `timeout`, each with the failed record under `execution`. 429 `quota_exceeded` (free plan past its monthly quota) and `concurrency_limit_exceeded` (the plan's executions in flight are all taken, or the machine is saturated and the execution could not start within a bounded wait; retry after 1 second) are not executions and are not counted.",
        errorResponses: {
          400: 'Invalid body',
          403: "Installing the module on first use would pass the plan's module limit (`plan_required`); or, not an execution and not counted, the key's policy refuses the call or `definition_hash` is not the module's current one (`policy_denied`, `reason: definition_changed`)",
          404: 'No such module or action',
          422: 'Input does not match the action schema (failed execution)',
          429: "Not an execution, not counted: the tenant's request pool is spent (`rate_limit_exceeded`); the free plan's monthly quota is exhausted (`quota_exceeded`, Retry-After until the next cycle); or `concurrency_limit_exceeded` (Retry-After: 1): the plan's executions in flight are all taken, or the machine is saturated and the execution could not start within a bounded wait",
          502: 'The module failed (failed execution)',
          504: 'The module timed out (failed execution)',
        },
      },
    })
    .input(executeInput)
    .output(skipsChecked(executeOutput))
    // executeAction composes the answer of values it constructs (ids, names, the rounded latency)
    // and the module's output, which executeOutput takes as it is: nothing for the parser to check.
    .mutation(async ({ ctx, input }) =>
      markTrusted(await executeAction(ctx.svc, ctx.principal, input, { requestId: ctx.requestId, slotClaim: ctx.slotClaim })),
    ),

  publish: apiProcedure('modules:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/modules',
        tags,
        summary: 'Publish a module',
        description:
          "Publishes a module of the tenant: `private` (default, visible to the tenant only) or `public`. Runtime `http` (the platform POSTs `{action, input}` to a public https endpoint, signed with HMAC-SHA256 in `X-Module-Signature`; the signing secret is returned once, as `signing_secret`) or `javascript` (a script defining `function handle(action, input)`, run in a QuickJS sandbox without network or host access). Action schemas must compile as JSON Schema 2020-12 and every example must match them. A name already used by any module (built-in or another tenant's) is 409. See docs/publishing.md.",
        errorResponses: {
          400: 'Invalid module (names, schemas, examples, endpoint or source)',
          409: 'The name is taken',
        },
      },
      successStatus: 201,
    })
    .input(publishModuleInput)
    .output(publishedModuleView)
    .mutation(({ ctx, input }) => publishModule(ctx.svc, ctx.principal, input)),

  update: apiProcedure('modules:write')
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/modules/{module}',
        tags,
        summary: 'Update a published module',
        description:
          "Changes any field of one of the tenant's own modules; `actions`, when given, replace all actions. `visibility: public` makes it visible to every tenant. A new http `secret` (or a first http runtime) is returned once as `signing_secret`; changing only the endpoint keeps the secret. Built-in modules and other tenants' modules are 404.",
        errorResponses: {
          400: 'Invalid changes',
          404: 'Not a module of this tenant',
        },
      },
    })
    .input(updateModuleInput)
    .output(publishedModuleView)
    .mutation(({ ctx, input }) => updateModule(ctx.svc, ctx.principal, input)),
});

/**
 * Types derived from the generated OpenAPI types (src/generated/openapi.ts): named resources and
 * helpers that read an operation's query, body and success body from `paths`.
 */
import type { components, paths } from './generated/openapi.js';

export type { components, operations, paths } from './generated/openapi.js';

type Schemas = components['schemas'];

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The operation object of `method` on `path`. */
export type Operation<P extends keyof paths, M extends HttpMethod> = NonNullable<paths[P][M]>;

/** The JSON request body of an operation (`never` when it takes none). */
export type RequestBody<P extends keyof paths, M extends HttpMethod> =
  Operation<P, M> extends { requestBody?: infer RB }
    ? NonNullable<RB> extends { content: { 'application/json': infer B } }
      ? B
      : never
    : never;

/** The query parameters of an operation. */
export type QueryParams<P extends keyof paths, M extends HttpMethod> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type SuccessStatus = 200 | 201 | 202;

/** The JSON body of an operation's success answers (200, 201, 202). */
export type ResponseBody<P extends keyof paths, M extends HttpMethod> =
  Operation<P, M> extends { responses: infer R }
    ? {
        [S in keyof R & SuccessStatus]: R[S] extends { content: { 'application/json': infer J } } ? J : never;
      }[keyof R & SuccessStatus]
    : never;

/** The item type of a list operation (`{ data: T[] }`). */
export type ListItem<P extends keyof paths, M extends HttpMethod = 'get'> = ResponseBody<P, M> extends { data: (infer T)[] } ? T : never;

export type ApiErrorBody = Schemas['ApiError'];
/** Every error code the API answers (`error` of an error body). */
export type ApiErrorCode = ApiErrorBody['error'];

export type Module = Schemas['Module'];
export type Action = Schemas['Action'];
export type Installation = Schemas['Installation'];
export type PublishedModule = Schemas['PublishedModule'];
export type ExecutionResult = Schemas['ExecutionResult'];
export type Execution = Schemas['Execution'];
export type ExecutionDetail = Schemas['ExecutionDetail'];
export type SearchResult = Schemas['SearchResult'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyWithSecret = Schemas['ApiKeyWithSecret'];
export type RevokedApiKey = Schemas['RevokedApiKey'];
export type RotatedApiKey = Schemas['RotatedApiKey'];
export type ApiKeyUsage = Schemas['ApiKeyUsage'];
export type KeyPolicy = Schemas['KeyPolicy'];
export type Webhook = Schemas['Webhook'];
export type WebhookDetail = Schemas['WebhookDetail'];
export type WebhookListItem = Schemas['WebhookListItem'];
export type WebhookMessage = Schemas['WebhookMessage'];
export type Delivery = Schemas['Delivery'];
export type DeliveryWithPayload = Schemas['DeliveryWithPayload'];
export type DeletedWebhook = Schemas['DeletedWebhook'];
export type WebhookEnvelope = Schemas['WebhookEnvelope'];
export type MemoryEntry = Schemas['MemoryEntry'];
export type MemoryAgent = Schemas['MemoryAgent'];
export type Workflow = Schemas['Workflow'];
export type WorkflowRun = Schemas['WorkflowRun'];
export type WorkflowRunSummary = Schemas['WorkflowRunSummary'];
export type StartedWorkflowRun = Schemas['StartedWorkflowRun'];
export type ReplayedWorkflowRun = Schemas['ReplayedWorkflowRun'];
export type CancelledWorkflowRuns = Schemas['CancelledWorkflowRuns'];
export type ReplayedWorkflowRuns = Schemas['ReplayedWorkflowRuns'];
export type Usage = Schemas['Usage'];
export type Invoice = Schemas['Invoice'];
export type Plan = Schemas['Plan'];
export type WhoAmI = Schemas['WhoAmI'];

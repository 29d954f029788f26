export { Amp, type McpOptions } from './client.js';
export {
  HttpClient,
  newIdempotencyKey,
  SDK_VERSION,
  type ClientOptions,
  type Credentials,
  type FetchLike,
  type RequestOptions,
  type RetryInfo,
} from './core.js';
export {
  AmpError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnprocessableEntityError,
  type ApiErrorIssue,
} from './errors.js';
export { iterate, Page, type ListBody } from './pagination.js';
export {
  AuditLog,
  Executions,
  Invoices,
  Keys,
  Members,
  Memory,
  Modules,
  Plans,
  UsageResource,
  Webhooks,
  Workflows,
  type ListPage,
} from './resources.js';
export * from './types.js';
export {
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  webhookSigningKey,
  type VerifyOptions,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from './webhooks.js';

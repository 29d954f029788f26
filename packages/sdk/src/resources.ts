import type { HttpClient, RequestOptions } from './core.js';
import { paginate, type ListBody, type Page } from './pagination.js';
import type { ListItem, QueryParams, RequestBody, ResponseBody } from './types.js';
import { verifyWebhook, type VerifyOptions, type WebhookHeaders } from './webhooks.js';
import type { paths } from './generated/openapi.js';

const enc = encodeURIComponent;

type M = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Q<P extends keyof paths, Method extends M = 'get'> = QueryParams<P, Method>;
type B<P extends keyof paths, Method extends M> = RequestBody<P, Method>;
type R<P extends keyof paths, Method extends M> = ResponseBody<P, Method>;
/** A page of the list operation `GET P`. */
export type ListPage<P extends keyof paths> = Page<
  ListItem<P>,
  R<P, 'get'> & { data: ListItem<P>[]; has_more: boolean; next_cursor: string | null }
>;

abstract class Resource {
  constructor(protected readonly http: HttpClient) {}

  protected _get<T>(path: string, query?: object, options?: RequestOptions): Promise<T> {
    return this.http.request<T>({ method: 'GET', path, query }, options);
  }
  protected _post<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T> {
    return this.http.request<T>({ method: 'POST', path, body }, options);
  }
  protected _put<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T> {
    return this.http.request<T>({ method: 'PUT', path, body }, options);
  }
  protected _patch<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T> {
    return this.http.request<T>({ method: 'PATCH', path, body }, options);
  }
  protected _delete<T>(path: string, options?: RequestOptions): Promise<T> {
    return this.http.request<T>({ method: 'DELETE', path }, options);
  }
  protected _list<P extends keyof paths>(
    path: string,
    query: object | undefined,
    options?: RequestOptions,
    cursorParam = 'cursor',
  ): Promise<ListPage<P>> {
    return paginate((q, o) => this._get<ListBody<unknown>>(path, q, o), { ...query }, options, cursorParam) as unknown as Promise<
      ListPage<P>
    >;
  }
}

/** Modules: the catalog, installs and execution. */
export class Modules extends Resource {
  /** A page of modules (`installed: true` for the tenant's installs); `for await` over it walks every page. */
  list(query?: Q<'/api/v1/modules'>, options?: RequestOptions) {
    return this._list<'/api/v1/modules'>('/api/v1/modules', query, options);
  }
  /** Every module, page after page. */
  async *listAll(query?: Q<'/api/v1/modules'>, options?: RequestOptions): AsyncGenerator<ListItem<'/api/v1/modules'>> {
    yield* await this.list(query, options);
  }
  get(name: string, options?: RequestOptions): Promise<R<'/api/v1/modules/{module}', 'get'>> {
    return this._get<R<'/api/v1/modules/{module}', 'get'>>(`/api/v1/modules/${enc(name)}`, undefined, options);
  }
  /** Full-text search of the catalog (`GET /api/v1/catalog/search`). */
  search(query: Q<'/api/v1/catalog/search'>, options?: RequestOptions): Promise<R<'/api/v1/catalog/search', 'get'>> {
    return this._get<R<'/api/v1/catalog/search', 'get'>>('/api/v1/catalog/search', query, options);
  }
  /** Runs an action (the module installs itself on first use). Retried with one `Idempotency-Key`, so it runs once. */
  execute(
    name: string,
    body: B<'/api/v1/modules/{module}/execute', 'post'>,
    options?: RequestOptions,
  ): Promise<R<'/api/v1/modules/{module}/execute', 'post'>> {
    return this._post<R<'/api/v1/modules/{module}/execute', 'post'>>(`/api/v1/modules/${enc(name)}/execute`, body, options);
  }
  install(name: string, options?: RequestOptions): Promise<R<'/api/v1/modules/{module}/install', 'post'>> {
    return this._post<R<'/api/v1/modules/{module}/install', 'post'>>(`/api/v1/modules/${enc(name)}/install`, undefined, options);
  }
  uninstall(name: string, options?: RequestOptions): Promise<R<'/api/v1/modules/{module}/install', 'delete'>> {
    return this._delete<R<'/api/v1/modules/{module}/install', 'delete'>>(`/api/v1/modules/${enc(name)}/install`, options);
  }
  /** Publishes a tenant module. */
  publish(body: B<'/api/v1/modules', 'post'>, options?: RequestOptions): Promise<R<'/api/v1/modules', 'post'>> {
    return this._post<R<'/api/v1/modules', 'post'>>('/api/v1/modules', body, options);
  }
  /** Publishes a new version of a tenant module. */
  update(
    name: string,
    body: B<'/api/v1/modules/{module}', 'put'>,
    options?: RequestOptions,
  ): Promise<R<'/api/v1/modules/{module}', 'put'>> {
    return this._put<R<'/api/v1/modules/{module}', 'put'>>(`/api/v1/modules/${enc(name)}`, body, options);
  }
}

/** The tenant's execution records. */
export class Executions extends Resource {
  list(query?: Q<'/api/v1/executions'>, options?: RequestOptions) {
    return this._list<'/api/v1/executions'>('/api/v1/executions', query, options);
  }
  async *listAll(query?: Q<'/api/v1/executions'>, options?: RequestOptions): AsyncGenerator<ListItem<'/api/v1/executions'>> {
    yield* await this.list(query, options);
  }
  get(id: string, options?: RequestOptions): Promise<R<'/api/v1/executions/{execution_id}', 'get'>> {
    return this._get<R<'/api/v1/executions/{execution_id}', 'get'>>(`/api/v1/executions/${enc(id)}`, undefined, options);
  }
}

/** API keys (creating one needs Pro or above; the answer holds the secret once). */
export class Keys extends Resource {
  create(body: B<'/api/v1/keys', 'post'>, options?: RequestOptions): Promise<R<'/api/v1/keys', 'post'>> {
    return this._post<R<'/api/v1/keys', 'post'>>('/api/v1/keys', body, options);
  }
  list(query?: Q<'/api/v1/keys'>, options?: RequestOptions) {
    return this._list<'/api/v1/keys'>('/api/v1/keys', query, options);
  }
  async *listAll(query?: Q<'/api/v1/keys'>, options?: RequestOptions): AsyncGenerator<ListItem<'/api/v1/keys'>> {
    yield* await this.list(query, options);
  }
  get(keyId: string, options?: RequestOptions): Promise<R<'/api/v1/keys/{key_id}', 'get'>> {
    return this._get<R<'/api/v1/keys/{key_id}', 'get'>>(`/api/v1/keys/${enc(keyId)}`, undefined, options);
  }
  revoke(keyId: string, options?: RequestOptions): Promise<R<'/api/v1/keys/{key_id}', 'delete'>> {
    return this._delete<R<'/api/v1/keys/{key_id}', 'delete'>>(`/api/v1/keys/${enc(keyId)}`, options);
  }
  /** A new secret; the old one keeps working for `grace_seconds`. */
  rotate(
    keyId: string,
    body: B<'/api/v1/keys/{key_id}/rotate', 'post'> = {},
    options?: RequestOptions,
  ): Promise<R<'/api/v1/keys/{key_id}/rotate', 'post'>> {
    return this._post<R<'/api/v1/keys/{key_id}/rotate', 'post'>>(`/api/v1/keys/${enc(keyId)}/rotate`, body, options);
  }
  /** Replaces the key's policy (allowed modules, caps, expiry, IPs). */
  setPolicy(
    keyId: string,
    policy: B<'/api/v1/keys/{key_id}/policy', 'put'>,
    options?: RequestOptions,
  ): Promise<R<'/api/v1/keys/{key_id}/policy', 'put'>> {
    return this._put<R<'/api/v1/keys/{key_id}/policy', 'put'>>(`/api/v1/keys/${enc(keyId)}/policy`, policy, options);
  }
  /** Alias of {@link setPolicy}. */
  policy(keyId: string, policy: B<'/api/v1/keys/{key_id}/policy', 'put'>, options?: RequestOptions) {
    return this.setPolicy(keyId, policy, options);
  }
  usage(
    keyId: string,
    query?: Q<'/api/v1/keys/{key_id}/usage'>,
    options?: RequestOptions,
  ): Promise<R<'/api/v1/keys/{key_id}/usage', 'get'>> {
    return this._get<R<'/api/v1/keys/{key_id}/usage', 'get'>>(`/api/v1/keys/${enc(keyId)}/usage`, query, options);
  }
}

/** Webhook subscriptions, their deliveries, and verifying a delivery. */
export class Webhooks extends Resource {
  create(body: B<'/api/v1/webhooks', 'post'>, options?: RequestOptions): Promise<R<'/api/v1/webhooks', 'post'>> {
    return this._post<R<'/api/v1/webhooks', 'post'>>('/api/v1/webhooks', body, options);
  }
  list(query?: Q<'/api/v1/webhooks'>, options?: RequestOptions) {
    return this._list<'/api/v1/webhooks'>('/api/v1/webhooks', query, options);
  }
  async *listAll(query?: Q<'/api/v1/webhooks'>, options?: RequestOptions): AsyncGenerator<ListItem<'/api/v1/webhooks'>> {
    yield* await this.list(query, options);
  }
  get(id: string, options?: RequestOptions): Promise<R<'/api/v1/webhooks/{id}', 'get'>> {
    return this._get<R<'/api/v1/webhooks/{id}', 'get'>>(`/api/v1/webhooks/${enc(id)}`, undefined, options);
  }
  update(id: string, body: B<'/api/v1/webhooks/{id}', 'put'>, options?: RequestOptions): Promise<R<'/api/v1/webhooks/{id}', 'put'>> {
    return this._put<R<'/api/v1/webhooks/{id}', 'put'>>(`/api/v1/webhooks/${enc(id)}`, body, options);
  }
  delete(id: string, options?: RequestOptions): Promise<R<'/api/v1/webhooks/{id}', 'delete'>> {
    return this._delete<R<'/api/v1/webhooks/{id}', 'delete'>>(`/api/v1/webhooks/${enc(id)}`, options);
  }
  /** The latest 100 deliveries of a push subscription (newest first, each with its attempts). */
  async deliveries(id: string, options?: RequestOptions): Promise<R<'/api/v1/webhooks/{id}', 'get'>['deliveries']> {
    return (await this.get(id, options)).deliveries;
  }
  /** A page of a poll subscription's (`kind: "poll"`) messages; `for await` over it reads on. */
  messages(id: string, query?: Q<'/api/v1/webhooks/{id}/messages'>, options?: RequestOptions) {
    return this._list<'/api/v1/webhooks/{id}/messages'>(`/api/v1/webhooks/${enc(id)}/messages`, query, options, 'after');
  }
  async *messagesAll(
    id: string,
    query?: Q<'/api/v1/webhooks/{id}/messages'>,
    options?: RequestOptions,
  ): AsyncGenerator<ListItem<'/api/v1/webhooks/{id}/messages'>> {
    yield* await this.messages(id, query, options);
  }
  /** One delivery with its attempts and the payload it sends. */
  delivery(id: string, deliveryId: string, options?: RequestOptions): Promise<R<'/api/v1/webhooks/{id}/deliveries/{delivery_id}', 'get'>> {
    return this._get<R<'/api/v1/webhooks/{id}/deliveries/{delivery_id}', 'get'>>(
      `/api/v1/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}`,
      undefined,
      options,
    );
  }
  /** Sends a delivery's event again (a new attempt). */
  resend(
    id: string,
    deliveryId: string,
    options?: RequestOptions,
  ): Promise<R<'/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend', 'post'>> {
    return this._post<R<'/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend', 'post'>>(
      `/api/v1/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}/resend`,
      undefined,
      options,
    );
  }
  /** Sends one signed test attempt now and answers how the receiver replied. */
  test(
    id: string,
    body: B<'/api/v1/webhooks/{id}/test', 'post'> = {},
    options?: RequestOptions,
  ): Promise<R<'/api/v1/webhooks/{id}/test', 'post'>> {
    return this._post<R<'/api/v1/webhooks/{id}/test', 'post'>>(`/api/v1/webhooks/${enc(id)}/test`, body, options);
  }
  rotateSecret(
    id: string,
    body: B<'/api/v1/webhooks/{id}/rotate-secret', 'post'> = {},
    options?: RequestOptions,
  ): Promise<R<'/api/v1/webhooks/{id}/rotate-secret', 'post'>> {
    return this._post<R<'/api/v1/webhooks/{id}/rotate-secret', 'post'>>(`/api/v1/webhooks/${enc(id)}/rotate-secret`, body, options);
  }
  enable(id: string, options?: RequestOptions): Promise<R<'/api/v1/webhooks/{id}/enable', 'post'>> {
    return this._post<R<'/api/v1/webhooks/{id}/enable', 'post'>>(`/api/v1/webhooks/${enc(id)}/enable`, undefined, options);
  }
  replay(
    id: string,
    body: B<'/api/v1/webhooks/{id}/replay', 'post'>,
    options?: RequestOptions,
  ): Promise<R<'/api/v1/webhooks/{id}/replay', 'post'>> {
    return this._post<R<'/api/v1/webhooks/{id}/replay', 'post'>>(`/api/v1/webhooks/${enc(id)}/replay`, body, options);
  }
  recover(
    id: string,
    body: B<'/api/v1/webhooks/{id}/recover', 'post'>,
    options?: RequestOptions,
  ): Promise<R<'/api/v1/webhooks/{id}/recover', 'post'>> {
    return this._post<R<'/api/v1/webhooks/{id}/recover', 'post'>>(`/api/v1/webhooks/${enc(id)}/recover`, body, options);
  }
  stats(id: string, query?: Q<'/api/v1/webhooks/{id}/stats'>, options?: RequestOptions): Promise<R<'/api/v1/webhooks/{id}/stats', 'get'>> {
    return this._get<R<'/api/v1/webhooks/{id}/stats', 'get'>>(`/api/v1/webhooks/${enc(id)}/stats`, query, options);
  }
  eventTypes(options?: RequestOptions): Promise<R<'/api/v1/webhooks/event-types', 'get'>> {
    return this._get<R<'/api/v1/webhooks/event-types', 'get'>>('/api/v1/webhooks/event-types', undefined, options);
  }
  health(options?: RequestOptions): Promise<R<'/api/v1/webhooks/health', 'get'>> {
    return this._get<R<'/api/v1/webhooks/health', 'get'>>('/api/v1/webhooks/health', undefined, options);
  }
  /**
   * Verifies a delivery's Standard Webhooks signature and returns its parsed body; throws
   * `WebhookVerificationError` otherwise. `rawBody` is the bytes received.
   */
  verify(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options?: VerifyOptions) {
    return verifyWebhook(rawBody, headers, secret, options);
  }
}

/** Agent memory: key-value entries per agent id. */
export class Memory extends Resource {
  /** Creates or replaces an entry. */
  set(body: B<'/api/v1/memory', 'post'>, options?: RequestOptions): Promise<R<'/api/v1/memory', 'post'>> {
    return this._post<R<'/api/v1/memory', 'post'>>('/api/v1/memory', body, options);
  }
  get(agentId: string, key: string, options?: RequestOptions): Promise<R<'/api/v1/memory/{agent_id}/{key}', 'get'>> {
    return this._get<R<'/api/v1/memory/{agent_id}/{key}', 'get'>>(`/api/v1/memory/${enc(agentId)}/${enc(key)}`, undefined, options);
  }
  delete(agentId: string, key: string, options?: RequestOptions): Promise<R<'/api/v1/memory/{agent_id}/{key}', 'delete'>> {
    return this._delete<R<'/api/v1/memory/{agent_id}/{key}', 'delete'>>(`/api/v1/memory/${enc(agentId)}/${enc(key)}`, options);
  }
  list(query: Q<'/api/v1/memory'>, options?: RequestOptions) {
    return this._list<'/api/v1/memory'>('/api/v1/memory', query, options);
  }
  async *listAll(query: Q<'/api/v1/memory'>, options?: RequestOptions): AsyncGenerator<ListItem<'/api/v1/memory'>> {
    yield* await this.list(query, options);
  }
  /** The agent ids that have entries. */
  agents(query?: Q<'/api/v1/memory/agents'>, options?: RequestOptions): Promise<R<'/api/v1/memory/agents', 'get'>> {
    return this._get<R<'/api/v1/memory/agents', 'get'>>('/api/v1/memory/agents', query, options);
  }
}

/** Workflows (sequences of module actions) and their runs. */
export class Workflows extends Resource {
  create(body: B<'/api/v1/workflows', 'post'>, options?: RequestOptions): Promise<R<'/api/v1/workflows', 'post'>> {
    return this._post<R<'/api/v1/workflows', 'post'>>('/api/v1/workflows', body, options);
  }
  list(query?: Q<'/api/v1/workflows'>, options?: RequestOptions) {
    return this._list<'/api/v1/workflows'>('/api/v1/workflows', query, options);
  }
  async *listAll(query?: Q<'/api/v1/workflows'>, options?: RequestOptions): AsyncGenerator<ListItem<'/api/v1/workflows'>> {
    yield* await this.list(query, options);
  }
  get(id: string, options?: RequestOptions): Promise<R<'/api/v1/workflows/{id}', 'get'>> {
    return this._get<R<'/api/v1/workflows/{id}', 'get'>>(`/api/v1/workflows/${enc(id)}`, undefined, options);
  }
  update(id: string, body: B<'/api/v1/workflows/{id}', 'put'>, options?: RequestOptions): Promise<R<'/api/v1/workflows/{id}', 'put'>> {
    return this._put<R<'/api/v1/workflows/{id}', 'put'>>(`/api/v1/workflows/${enc(id)}`, body, options);
  }
  delete(id: string, options?: RequestOptions): Promise<R<'/api/v1/workflows/{id}', 'delete'>> {
    return this._delete<R<'/api/v1/workflows/{id}', 'delete'>>(`/api/v1/workflows/${enc(id)}`, options);
  }
  /** Starts a run (202); poll it with {@link getRun}. */
  run(
    id: string,
    body: B<'/api/v1/workflows/{id}/runs', 'post'> = {},
    options?: RequestOptions,
  ): Promise<R<'/api/v1/workflows/{id}/runs', 'post'>> {
    return this._post<R<'/api/v1/workflows/{id}/runs', 'post'>>(`/api/v1/workflows/${enc(id)}/runs`, body, options);
  }
  runs(id: string, query?: Q<'/api/v1/workflows/{id}/runs'>, options?: RequestOptions) {
    return this._list<'/api/v1/workflows/{id}/runs'>(`/api/v1/workflows/${enc(id)}/runs`, query, options);
  }
  async *runsAll(
    id: string,
    query?: Q<'/api/v1/workflows/{id}/runs'>,
    options?: RequestOptions,
  ): AsyncGenerator<ListItem<'/api/v1/workflows/{id}/runs'>> {
    yield* await this.runs(id, query, options);
  }
  getRun(id: string, runId: string, options?: RequestOptions): Promise<R<'/api/v1/workflows/{id}/runs/{run_id}', 'get'>> {
    return this._get<R<'/api/v1/workflows/{id}/runs/{run_id}', 'get'>>(
      `/api/v1/workflows/${enc(id)}/runs/${enc(runId)}`,
      undefined,
      options,
    );
  }
  cancelRun(id: string, runId: string, options?: RequestOptions): Promise<R<'/api/v1/workflows/{id}/runs/{run_id}/cancel', 'post'>> {
    return this._post<R<'/api/v1/workflows/{id}/runs/{run_id}/cancel', 'post'>>(
      `/api/v1/workflows/${enc(id)}/runs/${enc(runId)}/cancel`,
      undefined,
      options,
    );
  }
  /** Approves a waiting approval step: it succeeds with `{approved: true, comment, by, decided_at}` and the run goes on. */
  approveStep(
    id: string,
    runId: string,
    step: string,
    body: B<'/api/v1/workflows/{id}/runs/{run_id}/steps/{step}/approve', 'post'> = {},
    options?: RequestOptions,
  ): Promise<R<'/api/v1/workflows/{id}/runs/{run_id}/steps/{step}/approve', 'post'>> {
    return this._post<R<'/api/v1/workflows/{id}/runs/{run_id}/steps/{step}/approve', 'post'>>(
      `/api/v1/workflows/${enc(id)}/runs/${enc(runId)}/steps/${enc(step)}/approve`,
      body,
      options,
    );
  }
  /** Rejects a waiting approval step: the step fails with `rejected` and the run fails with it. */
  rejectStep(
    id: string,
    runId: string,
    step: string,
    body: B<'/api/v1/workflows/{id}/runs/{run_id}/steps/{step}/reject', 'post'> = {},
    options?: RequestOptions,
  ): Promise<R<'/api/v1/workflows/{id}/runs/{run_id}/steps/{step}/reject', 'post'>> {
    return this._post<R<'/api/v1/workflows/{id}/runs/{run_id}/steps/{step}/reject', 'post'>>(
      `/api/v1/workflows/${enc(id)}/runs/${enc(runId)}/steps/${enc(step)}/reject`,
      body,
      options,
    );
  }
  /** Replays a failed or cancelled run from where it stopped (202, a new run with `replay_of`); asking again answers the same replay. */
  replayRun(id: string, runId: string, options?: RequestOptions): Promise<R<'/api/v1/workflows/{id}/runs/{run_id}/replay', 'post'>> {
    return this._post<R<'/api/v1/workflows/{id}/runs/{run_id}/replay', 'post'>>(
      `/api/v1/workflows/${enc(id)}/runs/${enc(runId)}/replay`,
      undefined,
      options,
    );
  }
  /** Cancels the queued and running runs matching `{status?, since?, until?}` (at most 500 per call; `has_more` when more matched). */
  cancelRuns(
    id: string,
    body: B<'/api/v1/workflows/{id}/runs/cancel', 'post'> = {},
    options?: RequestOptions,
  ): Promise<R<'/api/v1/workflows/{id}/runs/cancel', 'post'>> {
    return this._post<R<'/api/v1/workflows/{id}/runs/cancel', 'post'>>(`/api/v1/workflows/${enc(id)}/runs/cancel`, body, options);
  }
  /** Replays the failed runs (or `status: 'cancelled'`) matching `{status?, since?, until?}`, each once (at most 500 per call). */
  replayRuns(
    id: string,
    body: B<'/api/v1/workflows/{id}/runs/replay', 'post'> = {},
    options?: RequestOptions,
  ): Promise<R<'/api/v1/workflows/{id}/runs/replay', 'post'>> {
    return this._post<R<'/api/v1/workflows/{id}/runs/replay', 'post'>>(`/api/v1/workflows/${enc(id)}/runs/replay`, body, options);
  }
}

/** The tenant's metered usage in a billing cycle. */
export class UsageResource extends Resource {
  get(query?: Q<'/api/v1/billing/usage'>, options?: RequestOptions): Promise<R<'/api/v1/billing/usage', 'get'>> {
    return this._get<R<'/api/v1/billing/usage', 'get'>>('/api/v1/billing/usage', query, options);
  }
}

/** Invoices, one per closed billing cycle. */
export class Invoices extends Resource {
  list(query?: Q<'/api/v1/billing/invoices'>, options?: RequestOptions) {
    return this._list<'/api/v1/billing/invoices'>('/api/v1/billing/invoices', query, options);
  }
  async *listAll(query?: Q<'/api/v1/billing/invoices'>, options?: RequestOptions): AsyncGenerator<ListItem<'/api/v1/billing/invoices'>> {
    yield* await this.list(query, options);
  }
  get(id: string, options?: RequestOptions): Promise<R<'/api/v1/billing/invoices/{id}', 'get'>> {
    return this._get<R<'/api/v1/billing/invoices/{id}', 'get'>>(`/api/v1/billing/invoices/${enc(id)}`, undefined, options);
  }
  /** The invoice as a PDF document. */
  pdf(id: string, options?: RequestOptions): Promise<ArrayBuffer> {
    return this.http.request<ArrayBuffer>(
      { method: 'GET', path: `/api/v1/billing/invoices/${enc(id)}.pdf`, responseType: 'bytes' },
      options,
    );
  }
}

/** The people of the tenant: members, roles, invitations and ownership. */
export class Members extends Resource {
  list(query?: Q<'/api/v1/members'>, options?: RequestOptions) {
    return this._list<'/api/v1/members'>('/api/v1/members', query, options);
  }
  async *listAll(query?: Q<'/api/v1/members'>, options?: RequestOptions): AsyncGenerator<ListItem<'/api/v1/members'>> {
    yield* await this.list(query, options);
  }
  /** Who is calling: its role, scopes and every tenant it belongs to. */
  me(options?: RequestOptions): Promise<R<'/api/v1/members/me', 'get'>> {
    return this._get<R<'/api/v1/members/me', 'get'>>('/api/v1/members/me', undefined, options);
  }
  roles(options?: RequestOptions): Promise<R<'/api/v1/members/roles', 'get'>> {
    return this._get<R<'/api/v1/members/roles', 'get'>>('/api/v1/members/roles', undefined, options);
  }
  invite(body: B<'/api/v1/members/invitations', 'post'>, options?: RequestOptions): Promise<R<'/api/v1/members/invitations', 'post'>> {
    return this._post<R<'/api/v1/members/invitations', 'post'>>('/api/v1/members/invitations', body, options);
  }
  invitations(options?: RequestOptions): Promise<R<'/api/v1/members/invitations', 'get'>> {
    return this._get<R<'/api/v1/members/invitations', 'get'>>('/api/v1/members/invitations', undefined, options);
  }
  resendInvitation(id: string, options?: RequestOptions): Promise<R<'/api/v1/members/invitations/{id}/resend', 'post'>> {
    return this._post<R<'/api/v1/members/invitations/{id}/resend', 'post'>>(
      `/api/v1/members/invitations/${enc(id)}/resend`,
      undefined,
      options,
    );
  }
  revokeInvitation(id: string, options?: RequestOptions): Promise<R<'/api/v1/members/invitations/{id}', 'delete'>> {
    return this._delete<R<'/api/v1/members/invitations/{id}', 'delete'>>(`/api/v1/members/invitations/${enc(id)}`, options);
  }
  /** With the invited user's bearer token: joins with the invitation's role. */
  acceptInvitation(token: string, options?: RequestOptions): Promise<R<'/api/v1/members/invitations/{token}/accept', 'post'>> {
    return this._post<R<'/api/v1/members/invitations/{token}/accept', 'post'>>(
      `/api/v1/members/invitations/${enc(token)}/accept`,
      undefined,
      options,
    );
  }
  changeRole(
    userId: string,
    role: B<'/api/v1/members/{user_id}', 'patch'>['role'],
    options?: RequestOptions,
  ): Promise<R<'/api/v1/members/{user_id}', 'patch'>> {
    return this._patch<R<'/api/v1/members/{user_id}', 'patch'>>(`/api/v1/members/${enc(userId)}`, { role }, options);
  }
  remove(userId: string, options?: RequestOptions): Promise<R<'/api/v1/members/{user_id}', 'delete'>> {
    return this._delete<R<'/api/v1/members/{user_id}', 'delete'>>(`/api/v1/members/${enc(userId)}`, options);
  }
  leave(options?: RequestOptions): Promise<R<'/api/v1/members/leave', 'post'>> {
    return this._post<R<'/api/v1/members/leave', 'post'>>('/api/v1/members/leave', undefined, options);
  }
  transferOwnership(userId: string, options?: RequestOptions): Promise<R<'/api/v1/members/transfer-ownership', 'post'>> {
    return this._post<R<'/api/v1/members/transfer-ownership', 'post'>>('/api/v1/members/transfer-ownership', { user_id: userId }, options);
  }
  acceptOwnership(token: string, options?: RequestOptions): Promise<R<'/api/v1/members/transfer-ownership/accept', 'post'>> {
    return this._post<R<'/api/v1/members/transfer-ownership/accept', 'post'>>(
      '/api/v1/members/transfer-ownership/accept',
      { token },
      options,
    );
  }
}

/** The audit log: who changed what, filtered, paged, or exported as CSV. */
export class AuditLog extends Resource {
  list(query?: Q<'/api/v1/audit-log'>, options?: RequestOptions) {
    return this._list<'/api/v1/audit-log'>('/api/v1/audit-log', query, options);
  }
  async *listAll(query?: Q<'/api/v1/audit-log'>, options?: RequestOptions): AsyncGenerator<ListItem<'/api/v1/audit-log'>> {
    yield* await this.list(query, options);
  }
  /** The filtered entries as CSV text (up to 10,000 rows). */
  async csv(query?: Omit<Q<'/api/v1/audit-log'>, 'format' | 'limit' | 'cursor'>, options?: RequestOptions): Promise<string> {
    const bytes = await this.http.request<ArrayBuffer>(
      { method: 'GET', path: '/api/v1/audit-log.csv', query, responseType: 'bytes' },
      options,
    );
    return new TextDecoder().decode(bytes);
  }
}

/** Plans: the catalog and the tenant's plan change. */
export class Plans extends Resource {
  list(options?: RequestOptions): Promise<R<'/api/v1/billing/plans', 'get'>> {
    return this._get<R<'/api/v1/billing/plans', 'get'>>('/api/v1/billing/plans', undefined, options);
  }
  change(body: B<'/api/v1/billing/plan', 'put'>, options?: RequestOptions): Promise<R<'/api/v1/billing/plan', 'put'>> {
    return this._put<R<'/api/v1/billing/plan', 'put'>>('/api/v1/billing/plan', body, options);
  }
}

import type { Client as A2AClient } from '@a2a-js/sdk/client';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpClient, type ClientOptions, type Credentials, type RequestOptions } from './core.js';
import { AmpError } from './errors.js';
import { AuditLog, Executions, Invoices, Keys, Members, Memory, Modules, Plans, UsageResource, Webhooks, Workflows } from './resources.js';
import type { RequestBody, ResponseBody } from './types.js';

export interface McpOptions {
  /** Narrows the tools to these modules (`?modules=`). */
  modules?: string[];
  /** How the client introduces itself (default `{ name: 'amp-sdk', version }`). */
  clientInfo?: { name: string; version: string };
}

/**
 * The Agent Module Platform client.
 *
 * ```ts
 * const amp = new Amp({ apiKey: process.env.AMP_API_KEY! }, { baseUrl: 'https://amp.example.com' });
 * const result = await amp.modules.execute('text', { action: 'slugify', input: { text: 'Hello World' } });
 * ```
 */
export class Amp {
  readonly http: HttpClient;
  readonly modules: Modules;
  readonly executions: Executions;
  readonly keys: Keys;
  readonly webhooks: Webhooks;
  readonly memory: Memory;
  readonly workflows: Workflows;
  readonly usage: UsageResource;
  readonly invoices: Invoices;
  readonly plans: Plans;
  readonly members: Members;
  readonly auditLog: AuditLog;

  constructor(credentials: Credentials, options: ClientOptions) {
    this.http = new HttpClient(credentials, options);
    this.modules = new Modules(this.http);
    this.executions = new Executions(this.http);
    this.keys = new Keys(this.http);
    this.webhooks = new Webhooks(this.http);
    this.memory = new Memory(this.http);
    this.workflows = new Workflows(this.http);
    this.usage = new UsageResource(this.http);
    this.invoices = new Invoices(this.http);
    this.plans = new Plans(this.http);
    this.members = new Members(this.http);
    this.auditLog = new AuditLog(this.http);
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** The caller: tenant, plan, limits, and the key's scopes (or the bearer's user). */
  me(options?: RequestOptions): Promise<ResponseBody<'/api/v1/me', 'get'>> {
    return this.http.request({ method: 'GET', path: '/api/v1/me' }, options);
  }

  /** The tenant's request-rate pool right now. */
  rateLimit(options?: RequestOptions): Promise<ResponseBody<'/api/v1/me/rate-limit', 'get'>> {
    return this.http.request({ method: 'GET', path: '/api/v1/me/rate-limit' }, options);
  }

  /** Several independent actions in one request. */
  batch(body: RequestBody<'/api/v1/batch', 'post'>, options?: RequestOptions): Promise<ResponseBody<'/api/v1/batch', 'post'>> {
    return this.http.request({ method: 'POST', path: '/api/v1/batch', body }, options);
  }

  /** Actions in sequence, each step's input drawn from earlier outputs. */
  chain(body: RequestBody<'/api/v1/chain', 'post'>, options?: RequestOptions): Promise<ResponseBody<'/api/v1/chain', 'post'>> {
    return this.http.request({ method: 'POST', path: '/api/v1/chain', body }, options);
  }

  /**
   * Everything an agent needs in one call (`POST /api/v1/agent/arm`): tenant, plan, limits, usage,
   * rate limit, endpoints and the tools to load, in `format` `openai` (default), `anthropic` or
   * `mcp`, named `module__action`: the actions matching `query`, else the installed modules'
   * actions, else every action the key may call.
   */
  arm(body: RequestBody<'/api/v1/agent/arm', 'post'> = {}, options?: RequestOptions): Promise<ResponseBody<'/api/v1/agent/arm', 'post'>> {
    return this.http.request({ method: 'POST', path: '/api/v1/agent/arm', body }, options);
  }

  /**
   * A connected MCP client (the official `@modelcontextprotocol/sdk`, a peer dependency) over
   * Streamable HTTP to `${baseUrl}/api/mcp`, authenticated with this client's credential.
   * Close it with `await client.close()`.
   */
  async mcp(options: McpOptions = {}): Promise<McpClient> {
    const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
      importPeer<typeof import('@modelcontextprotocol/sdk/client/index.js')>('@modelcontextprotocol/sdk/client/index.js'),
      importPeer<typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')>('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
    const url = new URL(`${this.baseUrl}/api/mcp`);
    if (options.modules?.length) url.searchParams.set('modules', options.modules.join(','));
    const client = new Client(options.clientInfo ?? { name: 'amp-sdk', version: '0.1.0' });
    const transport = new StreamableHTTPClientTransport(url, { fetch: this.http.authenticatedFetch() });
    await client.connect(transport);
    return client;
  }

  /**
   * An A2A client (the official `@a2a-js/sdk`, a peer dependency) for the service's agent card
   * (`${baseUrl}/.well-known/agent-card.json`), sending this client's credential on every call.
   */
  async a2a(): Promise<A2AClient> {
    const { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } =
      await importPeer<typeof import('@a2a-js/sdk/client')>('@a2a-js/sdk/client');
    const fetchImpl = this.http.authenticatedFetch() as typeof fetch;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    return factory.createFromUrl(this.baseUrl);
  }
}

async function importPeer<T>(specifier: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (cause) {
    throw new AmpError(`This helper needs the optional peer dependency of ${specifier}: install it (npm install ${peerName(specifier)}).`, {
      cause,
    });
  }
}

function peerName(specifier: string): string {
  const [scope, name] = specifier.split('/');
  return `${scope}/${name}`;
}

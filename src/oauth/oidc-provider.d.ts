/**
 * The part of oidc-provider 9 (which ships no TypeScript types) this service uses:
 * src/server/oauth/provider.ts builds the provider, src/server/oauth/interaction.ts finishes
 * interactions through its models.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface InteractionRecord {
    uid: string;
    params: Record<string, unknown>;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    session?: { accountId?: string };
    grantId?: string;
    result?: Record<string, unknown>;
    lastSubmission?: Record<string, unknown>;
    returnTo: string;
    exp: number;
    save(ttl: number): Promise<string>;
  }

  export interface ClientRecord {
    clientId: string;
    clientName?: string;
    redirectUris: string[];
    clientAuthMethod: string;
    metadata(): Record<string, unknown>;
  }

  export interface GrantRecord {
    jti: string;
    accountId: string;
    clientId: string;
    addResourceScope(resource: string, scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    save(ttl?: number): Promise<string>;
  }

  export class errors {
    static InvalidTarget: new (description?: string) => Error;
    static InvalidRequest: new (description?: string) => Error;
    static InvalidClientMetadata: new (description: string) => Error;
    static InvalidClientAuth: new (detail?: string) => Error;
    static AccessDenied: new (description?: string) => Error;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    issuer: string;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: never[]) => void): this;
    /** Koa middleware, run before the provider's routes (`next` runs them). */
    use(middleware: (ctx: never, next: () => Promise<void>) => Promise<void>): this;
    /** The context of the request being served (AsyncLocalStorage), when there is one. */
    static readonly ctx: { headers: Record<string, string | string[] | undefined> } | undefined;
    Interaction: { find(uid: string): Promise<InteractionRecord | undefined> };
    Client: { find(id: string): Promise<ClientRecord | undefined> };
    Grant: (new (init: { accountId: string; clientId: string }) => GrantRecord) & { find(id: string): Promise<GrantRecord | undefined> };
  }
}

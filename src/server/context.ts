import type { IncomingHttpHeaders } from 'node:http';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Principal } from '../auth/principal';
import type { SlotClaim } from '../metering/slots';
import type { Services } from '../services';
import type { AppError } from './errors';
import type { Requirements } from './openapi-parts';

/** One request on any transport: what admission (src/server/admission.ts) reads and fills in. */
export interface Context {
  svc: Services;
  requestId: string;
  ip: string;
  headers: IncomingHttpHeaders;
  principal?: Principal;
  /** The execution slot the execute procedure's admission round trip took ahead (meta `claimsSlot`). */
  slotClaim?: SlotClaim;
  /**
   * What the procedure chain adds to the response: headers (rate limits, ...) and a success
   * status override (e.g. health answers 503 with its body). One shared object, because tRPC
   * hands each middleware level a copy of the context.
   */
  res: { headers: Record<string, string>; status?: number; tenantId?: string };
  /**
   * Why the request body cannot be used (413 too large, 400 not JSON): raised where the input is
   * checked, after authentication, the rate limit, scope and plan.
   */
  bodyError?: AppError;
}

/** Who may call an operation: a tenant's credential, the operator, or anyone (the kind of procedure sets it). */
export type Caller = 'tenant' | 'operator' | 'anyone';

/**
 * The facts of one operation, set with `.meta()` and read by the admission middleware, the REST
 * adapter (src/server/http/rest.ts) and the OpenAPI generator (src/server/openapi.ts) alike.
 */
export type Meta = OpenApiMeta<{
  /** Set by the procedure kind (apiProcedure, adminProcedure, publicProcedure in src/server/trpc.ts). */
  caller?: Caller;
  /**
   * What a tenant's operation requires (apiProcedure): the credential's scope, the plan feature,
   * and what a member's role must hold instead of the scope. The OpenAPI document states them.
   */
  requires?: Requirements;
  /** Success status of the operation: 201 for creates, 202 for asynchronous starts. */
  successStatus?: 200 | 201 | 202;
  /**
   * Statuses the operation answers besides its success status, with the same body (its output
   * schema), set through `ctx.res.status`: status -> what it means.
   */
  alsoAnswers?: Record<number, string>;
  /** Exempt from the request limit: the pool is reported, not consumed. */
  rateLimitExempt?: boolean;
  /**
   * Runs one execution: the request count's round trip may also take the tenant's execution
   * slot (src/server/admission.ts admitTenant).
   */
  claimsSlot?: boolean;
  /** An operation open to anyone that takes a signed-in user's bearer token alone (its documented security). */
  bearerOnly?: boolean;
  /**
   * The output is a file `{ filename, content_type, data_base64 }`: REST answers its bytes with
   * that Content-Type (src/server/http/rest.ts); tRPC returns the object.
   */
  file?: boolean;
  /** The media type of a `file` output in the OpenAPI document: `application/pdf` unless set (e.g. `text/csv`). */
  fileMediaType?: string;
  /** REST only: `?format=<name>` answers as the named procedure instead (e.g. an invoice's `pdf`). */
  formats?: Record<string, string>;
  /**
   * The operation is deprecated (docs/versioning.md): every answer carries `Deprecation` (RFC 9745)
   * and, with `sunset`, `Sunset` (RFC 8594), plus a `Link` to `link`; the OpenAPI document marks it.
   */
  deprecation?: Deprecation;
}>;

export interface Deprecation {
  /** When it was deprecated (ISO 8601 date). */
  since: string;
  /** When it stops answering (ISO 8601 date), at least six months after `since`. */
  sunset?: string;
  /** Where the change is explained (the changelog entry, the replacement's docs). */
  link?: string;
}

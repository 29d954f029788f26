import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { LINK_API_KEY_MAX_LENGTH } from '../../contract/limits';
import { linkWithApiKey, verifyIdentity } from '../../identity/link';
import { consumeRegistration } from '../../metering/requests';
import { deleteAccount } from '../../tenants/deletion';
import { registerTenant, registerTenantForIdentity } from '../../tenants/register';
import { registerInput, registerOutput } from '../../tenants/schema';
import { AppError } from '../errors';
import { header } from '../admission';
import { bearerProcedure, publicProcedure, router, type Context } from '../trpc';

const registrationLimited = publicProcedure.use(async ({ ctx, next }) => {
  await consumeRegistration(ctx.svc, ctx.ip);
  return next();
});

/** The bearer token of a request, if it carries one (`Authorization: Bearer <jwt>`). */
function bearerToken(ctx: Context): string | undefined {
  const authorization = header(ctx.headers, 'authorization');
  if (!authorization) return undefined;
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (!token) throw new AppError('unauthorized', 'The Authorization header must be `Bearer <token>`.');
  return token;
}

/** With a bearer token both fields are optional (the token's email is the owner email). */
const registerBody = registerInput.partial();

export const authRouter = router({
  register: registrationLimited
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/register',
        protect: false,
        tags: ['auth'],
        summary: 'Register a tenant',
        description:
          'Creates a tenant on the free plan and returns its primary API key (scope `*`), shown only once. Without credentials, `agent_name` and `owner_email` are required. `owner_email` is unique (case-insensitive): a second registration is 409. Limited per client IP.\n\n' +
          "With `Authorization: Bearer <token>` of a signed-in user linked to no tenant (the built-in identity provider at `/auth/v1`, or the configured one), the tenant is created for that user and linked to it: `owner_email` is the token's email (the field may be left out, or must equal it), `agent_name` defaults to the email's local part. 409 when the user already owns a tenant, or when the email already owns one (link it with `POST /api/v1/auth/link`). An invalid or expired token is 401.",
        errorResponses: {
          400: 'Invalid body',
          401: 'The bearer token is invalid or expired',
          409: 'owner_email already registered, or the bearer user already owns a tenant',
          429: 'Too many registrations from this address',
        },
      },
      successStatus: 201,
    })
    .input(registerBody)
    .output(registerOutput)
    .mutation(async ({ ctx, input }) => {
      const token = bearerToken(ctx);
      if (token) {
        const claims = await verifyIdentity(ctx.svc, token);
        return registerTenantForIdentity(ctx.svc, claims, input);
      }
      const parsed = registerInput.safeParse(input);
      if (!parsed.success) throw new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error });
      return registerTenant(ctx.svc, parsed.data);
    }),

  link: bearerProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/link',
        protect: false,
        tags: ['auth'],
        summary: 'Link the signed-in user to a tenant',
        description:
          'Requires `Authorization: Bearer <token>` of a signed-in user (the built-in identity provider at `/auth/v1`, or the configured one). `api_key` proves ownership of the tenant: a valid, unrevoked key holding `*` (a narrower key is 403, an invalid or revoked one 401). The user becomes a member of that tenant: its owner when it has none yet, else an admin; a user may belong to several tenants and names one with `X-Tenant-Id`. Idempotent: linking again keeps the membership as it is and answers 200. An email alone never links a tenant, except when the provider proves it (see docs/auth.md).',
        errorResponses: {
          400: 'Invalid body',
          401: 'Missing or invalid bearer token, or an invalid or revoked api_key',
          403: 'The key does not hold `*`',
        },
      },
    })
    .input(
      z.strictObject({
        api_key: z.string().min(1).max(LINK_API_KEY_MAX_LENGTH).describe('A key of the tenant holding `*` (e.g. its primary key)'),
      }),
    )
    .output(z.object({ tenant_id: z.string().describe('The tenant the user now acts for') }))
    .mutation(async ({ ctx, input }) => linkWithApiKey(ctx.svc, ctx.claims, input.api_key)),

  deleteAccount: bearerProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/auth/delete-account',
        protect: false,
        tags: ['auth'],
        summary: 'Delete your account',
        description:
          'The signed-in user (`Authorization: Bearer <token>`) deletes its account, typing its email in `confirm`. Refused (409, `reason: owns_shared_tenant`) while it owns a tenant with other members: transfer ownership first. Tenants it owns alone are deleted with it (see `POST /api/v1/tenant/delete`); it leaves every other tenant. With the built-in identity provider the user, its sessions and passkeys are removed at once.',
        errorResponses: {
          400: 'Invalid body, or `confirm` is not your email',
          401: 'Missing or invalid bearer token',
          409: 'Owns a tenant with other members',
        },
      },
    })
    .input(z.strictObject({ confirm: z.string().max(320).describe('Your email address, typed to confirm') }))
    .output(
      z
        .object({
          deleted: z.literal(true),
          deleted_tenants: z.array(z.string()).describe('Tenants you owned alone, deleted with the account'),
        })
        .meta({ id: 'DeletedAccount' }),
    )
    .mutation(({ ctx, input }) => deleteAccount(ctx.svc, ctx.claims, input.confirm)),
});

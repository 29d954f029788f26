import { consumeRegistration } from '../../metering/requests';
import { registerTenant } from '../../tenants/register';
import { registerInput, registerOutput } from '../../tenants/schema';
import { publicProcedure, router } from '../trpc';

const registrationLimited = publicProcedure.use(async ({ ctx, next }) => {
  await consumeRegistration(ctx.svc, ctx.ip);
  return next();
});

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
          'Creates a tenant on the free plan and returns its primary API key (scope `*`), shown only once. `owner_email` is unique (case-insensitive): a second registration is 409. Limited per client IP.',
        errorResponses: { 400: 'Invalid body', 409: 'owner_email already registered', 429: 'Too many registrations from this address' },
      },
      successStatus: 201,
    })
    .input(registerInput)
    .output(registerOutput)
    .mutation(({ ctx, input }) => registerTenant(ctx.svc, input)),
});

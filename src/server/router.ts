import { adminRouter } from './routers/admin';
import { authRouter } from './routers/auth';
import { healthRouter } from './routers/health';
import { keysRouter } from './routers/keys';
import { tenantsRouter } from './routers/tenants';
import { createCallerFactory, router } from './trpc';

export const appRouter = router({
  auth: authRouter,
  keys: keysRouter,
  admin: adminRouter,
  health: healthRouter,
  tenants: tenantsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);

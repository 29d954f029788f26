import { adminRouter } from './routers/admin';
import { authRouter } from './routers/auth';
import { catalogRouter } from './routers/catalog';
import { executionsRouter } from './routers/executions';
import { healthRouter } from './routers/health';
import { keysRouter } from './routers/keys';
import { modulesRouter } from './routers/modules';
import { tenantsRouter } from './routers/tenants';
import { createCallerFactory, router } from './trpc';

export const appRouter = router({
  auth: authRouter,
  keys: keysRouter,
  admin: adminRouter,
  health: healthRouter,
  tenants: tenantsRouter,
  modules: modulesRouter,
  catalog: catalogRouter,
  executions: executionsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);

import { adminRouter } from './routers/admin';
import { agentRouter } from './routers/agent';
import { auditRouter } from './routers/audit';
import { authRouter } from './routers/auth';
import { billingRouter } from './routers/billing';
import { catalogRouter } from './routers/catalog';
import { certificationRouter } from './routers/certification';
import { executionsRouter } from './routers/executions';
import { healthRouter } from './routers/health';
import { invoicesRouter } from './routers/invoices';
import { keysRouter } from './routers/keys';
import { membersRouter } from './routers/members';
import { webhooksRouter } from './routers/webhooks';
import { workflowsRouter } from './routers/workflows';
import { memoryRouter } from './routers/memory';
import { modulesRouter } from './routers/modules';
import { plansRouter } from './routers/plans';
import { tenantsRouter } from './routers/tenants';
import { trustRouter } from './routers/trust';
import { router } from './trpc';

export const appRouter = router({
  auth: authRouter,
  keys: keysRouter,
  admin: adminRouter,
  health: healthRouter,
  tenants: tenantsRouter,
  modules: modulesRouter,
  catalog: catalogRouter,
  certification: certificationRouter,
  executions: executionsRouter,
  agent: agentRouter,
  memory: memoryRouter,
  webhooks: webhooksRouter,
  workflows: workflowsRouter,
  billing: billingRouter,
  invoices: invoicesRouter,
  plans: plansRouter,
  trust: trustRouter,
  members: membersRouter,
  auditLog: auditRouter,
});

export type AppRouter = typeof appRouter;

import { router } from '../trpc';

/** The audit log: GET /api/v1/audit-log (docs/organizations.md). */
export const auditRouter = router({});

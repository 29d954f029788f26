import { router } from '../trpc';

/** Members, roles and invitations (docs/organizations.md). */
export const membersRouter = router({});

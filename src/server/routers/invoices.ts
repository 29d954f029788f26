import { router } from '../trpc';

export const invoicesRouter = router({});

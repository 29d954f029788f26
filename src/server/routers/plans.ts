import { router } from '../trpc';

export const plansRouter = router({});

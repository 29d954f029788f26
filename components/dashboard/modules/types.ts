import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../../src/server/router';

export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type ModuleItem = RouterOutputs['modules']['get'];
export type ActionItem = ModuleItem['actions'][number];

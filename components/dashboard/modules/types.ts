import type { RouterOutputs } from '@/client/trpc/types';

export type ModuleItem = RouterOutputs['modules']['get'];
export type ActionItem = ModuleItem['actions'][number];

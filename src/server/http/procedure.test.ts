import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { markChecked } from '../../lib/checked-output';
import { AppError } from '../../lib/errors';
import type { Context } from '../context';
import { runProcedure, type ProcedureDef } from './procedure';

/** A chain like apiProcedure's: a middleware that adds to the context, then input, output and the resolver. */
const t = initTRPC.context<{ tag: string; seen?: string[] }>().create();
const withUser = t.procedure.use(async ({ ctx, next, getRawInput }) => {
  ctx.seen?.push(`raw:${JSON.stringify(await getRawInput())}`);
  return next({ ctx: { user: 'u1' } });
});
const router = t.router({
  echo: withUser
    .input(z.object({ n: z.coerce.number() }))
    .output(z.object({ n: z.number(), user: z.string(), tag: z.string() }))
    .query(({ ctx, input }) => ({ n: input.n, user: ctx.user, tag: ctx.tag, internal: 'stripped' })),
  wrong: withUser.output(z.object({ n: z.number() })).query(() => ({ n: 'not a number' }) as unknown as { n: number }),
  trusted: withUser.output(z.object({ n: z.number() })).query(() => markChecked({ n: 1, extra: 'kept' })),
  fails: withUser.query(() => {
    throw new AppError('not_found', 'No such thing.');
  }),
});

const defOf = (name: keyof typeof router._def.procedures) => (router._def.procedures[name] as unknown as { _def: ProcedureDef })._def;
const run = (name: keyof typeof router._def.procedures, input: unknown, seen?: string[]) =>
  runProcedure(defOf(name), { tag: 'x', seen } as unknown as Context, name, input);
const caller = t.createCallerFactory(router)({ tag: 'x' });

describe('REST procedure calls', () => {
  it('run the chain as tRPC does: context merged, raw input, parsed input and output', async () => {
    const seen: string[] = [];
    expect(await run('echo', { n: '4' }, seen)).toEqual({ n: 4, user: 'u1', tag: 'x' });
    expect(seen).toEqual(['raw:{"n":"4"}']);
    expect(await caller.echo({ n: '4' } as never)).toEqual(await run('echo', { n: '4' }));
  });

  it('fail as tRPC fails: input (BAD_REQUEST), output (INTERNAL_SERVER_ERROR), thrown errors kept as the cause', async () => {
    for (const [name, input] of [['echo', { n: 'x' }], ['wrong', {}], ['fails', {}]] as const) {
      const ours = await run(name, input).catch((e: unknown) => e);
      const theirs = await (caller[name] as (i: unknown) => Promise<unknown>)(input).catch((e: unknown) => e);
      expect(ours).toBeInstanceOf(TRPCError);
      expect([(ours as TRPCError).code, (ours as TRPCError).message, (ours as TRPCError).cause?.constructor]).toEqual([
        (theirs as TRPCError).code,
        (theirs as TRPCError).message,
        (theirs as TRPCError).cause?.constructor,
      ]);
    }
  });

  it('skip the output parser only for a result the service marked as checked', async () => {
    expect(await run('trusted', {})).toEqual({ n: 1, extra: 'kept' });
    expect(await caller.trusted()).toEqual({ n: 1 });
  });
});

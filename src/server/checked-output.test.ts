import { callTRPCProcedure, initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { markChecked } from '../lib/checked-output';
import { skipsChecked } from './trpc';

const t = initTRPC.create();
const shape = () => z.object({ n: z.number() });
const router = t.router({
  plain: t.procedure.output(skipsChecked(shape())).query(() => ({ n: 1, extra: 'stripped' })),
  checked: t.procedure.output(skipsChecked(shape())).query(() => markChecked({ n: 1, extra: 'kept' })),
  wrong: t.procedure.output(skipsChecked(shape())).query(() => ({ n: 'not a number' }) as unknown as { n: number }),
});

const call = (path: string) =>
  callTRPCProcedure({ router, path, type: 'query', ctx: {}, getRawInput: async () => undefined, signal: undefined, batchIndex: 0 });

describe('skipsChecked outputs', () => {
  it('skip the parser only for a result the service marked as checked', async () => {
    expect(await call('checked')).toEqual({ n: 1, extra: 'kept' });
    expect(await call('plain')).toEqual({ n: 1 });
  });

  it('fail as tRPC fails on any other result that does not match', async () => {
    await expect(call('wrong')).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: 'Output validation failed' });
  });
});

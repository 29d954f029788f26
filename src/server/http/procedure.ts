import { getTRPCErrorFromUnknown, TRPCError } from '@trpc/server';
import { isChecked } from '../../lib/checked-output';
import type { Context, Meta } from '../context';

type MiddlewareResult = { ok: true; data: unknown; marker: string; ctx?: object } | { ok: false; error: TRPCError; marker: string };

interface CallState {
  ctx: object;
  path: string;
  type: string;
  input: unknown;
  getRawInput: () => Promise<unknown>;
  signal: undefined;
  batchIndex: number;
}

interface NextOptions {
  ctx?: object;
  input?: unknown;
  getRawInput?: () => Promise<unknown>;
}

type Middleware = ((opts: CallState & { meta: Meta | undefined; next: (opts?: NextOptions) => Promise<MiddlewareResult> }) => Promise<MiddlewareResult>) & {
  _type?: string;
};

export interface ProcedureDef {
  type: string;
  meta?: Meta;
  middlewares: Middleware[];
}

/**
 * Calls a procedure for the REST adapter: its middlewares in tRPC's order with tRPC's semantics
 * (a `next({ ctx })` merges into the context, `next({ input })` replaces the input, a thrown
 * error becomes the failed result tRPC would make of it), so REST runs exactly the chain tRPC
 * runs. Two differences, both about speed (issue #16): the call state is copied with native
 * spreads (tRPC's transpiled spread helper copied it ~16 times per call, 5–8% of the main
 * thread's CPU on reads), and a result the service marks as checked (src/lib/checked-output.ts)
 * skips the output parser, which checked its parts once already.
 */
export async function runProcedure(def: ProcedureDef, ctx: Context, path: string, input: unknown): Promise<unknown> {
  const result = await step(def, 0, { ctx, path, type: def.type, input: undefined, getRawInput: resolving(input), signal: undefined, batchIndex: 0 });
  if (!result) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'No result from middlewares' });
  if (!result.ok) throw result.error;
  return result.data;
}

async function step(def: ProcedureDef, index: number, state: CallState): Promise<MiddlewareResult> {
  const middleware = def.middlewares[index]!;
  try {
    if (middleware._type === 'output') {
      const result = await step(def, index + 1, state);
      if (!result.ok || isChecked(result.data)) return result;
      return await middleware({ ...state, meta: def.meta, next: resolving(result) });
    }
    return await middleware({ ...state, meta: def.meta, next: nextStep(def, index + 1, state) });
  } catch (cause) {
    return { ok: false, error: getTRPCErrorFromUnknown(cause), marker: 'middlewareMarker' };
  }
}

// The closures below are returned, not written as `name: () => ...` in the literals above: under
// tsx (esbuild's keepNames) each named closure costs a defineProperty per call, 2-4% of the main
// thread on the hot paths.

/** A middleware's `next`: the following step, with what the middleware passed merged in as tRPC does. */
function nextStep(def: ProcedureDef, index: number, state: CallState): (opts?: NextOptions) => Promise<MiddlewareResult> {
  return (opts?: NextOptions) =>
    step(
      def,
      index,
      opts
        ? {
            ...state,
            ctx: opts.ctx ? { ...state.ctx, ...opts.ctx } : state.ctx,
            input: 'input' in opts ? opts.input : state.input,
            getRawInput: opts.getRawInput ?? state.getRawInput,
          }
        : state,
    );
}

function resolving<T>(value: T): () => Promise<T> {
  return () => Promise.resolve(value);
}

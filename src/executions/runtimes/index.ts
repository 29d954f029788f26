import type { ModuleActionRow, ModuleRuntime } from '../../db/schema';
import type { Services } from '../../services';
import { runHttpModule } from './http';
import type { SandboxOutcome } from './javascript';

const MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Runs one action of a published module (`http` or `javascript` runtime) with the action's
 * timeout; the outcome has the shape of the worker pool's (RunOutcome). The input was validated
 * against the action's input_schema already.
 */
export async function runPublishedAction(
  svc: Pick<Services, 'config' | 'sandbox'>,
  runtime: Exclude<ModuleRuntime, { type: 'builtin' }>,
  action: Pick<ModuleActionRow, 'name' | 'timeoutMs'>,
  input: Record<string, unknown>,
): Promise<SandboxOutcome> {
  const outcome =
    runtime.type === 'javascript'
      ? await svc.sandbox.run(runtime.source, action.name, input, action.timeoutMs)
      : await runHttpModule({
          runtime,
          action: action.name,
          input,
          timeoutMs: action.timeoutMs,
          allowPrivate: svc.config.webhooks.allowPrivate,
          encryptionKey: svc.config.encryptionKey,
        });
  if (outcome.ok && Buffer.byteLength(JSON.stringify(outcome.output ?? null)) > MAX_OUTPUT_BYTES) {
    return { ok: false, code: 'module_error', message: 'The action output exceeds 1 MiB.' };
  }
  return outcome;
}

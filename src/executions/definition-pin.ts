import { definitionHash } from '../catalog/definition-hash';
import type { ModuleWithActions } from '../catalog/queries';
import { AppError } from '../lib/errors';

/**
 * 403 `policy_denied` (rule `definition_hash`, reason `definition_changed`) when a call names the
 * module definition it expects and the module's is another: the caller read the module before it
 * changed, and the call is not run on a definition the caller has not seen.
 */
export function assertDefinitionIsCurrent(found: ModuleWithActions, pinned: string | undefined): void {
  if (pinned === undefined) return;
  const current = definitionHash(found.module, found.actions);
  if (current === pinned) return;
  throw new AppError(
    'policy_denied',
    `Module '${found.module.name}' changed since the definition this call names (pinned ${pinned}, now ${current}); read the module again before calling it.`,
    { rule: 'definition_hash', reason: 'definition_changed' },
  );
}

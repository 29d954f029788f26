import { builtinAction } from '../modules/definitions';

/**
 * The `module` label of an execution: a built-in module's name, else `custom`. Tenants name
 * their own modules freely, so their names would make the label unbounded (and show one
 * tenant's names to whoever reads the metrics).
 */
export function moduleLabel(module: string, action: string): string {
  try {
    return builtinAction(module, action) ? module : 'custom';
  } catch {
    // The built-in definitions are not read yet (only before start-up finishes).
    return 'custom';
  }
}

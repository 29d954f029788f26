import { createHash } from 'node:crypto';
import type { ModuleActionRow, ModuleRow } from '../db/schema';
import { canonicalJson } from '../lib/canonical-json';

/** `sha256:` and 64 hex digits: how a definition hash is written everywhere. */
export const DEFINITION_HASH = /^sha256:[0-9a-f]{64}$/;

const memo = new Map<string, string>();
const MEMO_MAX = 10_000;

/**
 * What a caller agrees to when it calls a module: its version, its actions with their
 * descriptions and schemas, and what runs them (the endpoint of an `http` module, the source of
 * a `javascript` one; a built-in's name and version stand for its code). The publisher's signing
 * secret is left out: re-encrypting it changes nothing a caller relies on. Any change to the rest
 * gives another hash, so a key that pinned a module (docs/policies.md) stops calling it until its
 * owner has looked at the new definition.
 */
export function definitionHash(module: ModuleRow, actions: readonly ModuleActionRow[]): string {
  const memoKey = `${module.name}\n${module.version}\n${module.updatedAt.getTime()}`;
  const known = memo.get(memoKey);
  if (known) return known;
  const runtime = module.runtime;
  const definition = {
    name: module.name,
    version: module.version,
    description: module.description,
    runtime: runtime.type === 'http' ? { type: 'http', endpoint: runtime.endpoint } : runtime,
    actions: actions.map((a) => ({
      name: a.name,
      description: a.description,
      input_schema: a.inputSchema,
      output_schema: a.outputSchema,
      timeout_ms: a.timeoutMs,
    })),
  };
  const hash = `sha256:${createHash('sha256').update(canonicalJson(definition)).digest('hex')}`;
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(memoKey, hash);
  return hash;
}

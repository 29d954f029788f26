import type { ModuleActionRow, ModuleRow } from '../db/schema';
import { definitionHash } from './definition-hash';

export function presentAction(a: ModuleActionRow) {
  return {
    name: a.name,
    description: a.description,
    input_schema: a.inputSchema,
    output_schema: a.outputSchema,
    examples: a.examples,
  };
}

export function presentModule(m: ModuleRow, actions: ModuleActionRow[], installed: boolean) {
  return {
    name: m.name,
    version: m.version,
    definition_hash: definitionHash(m, actions),
    title: m.title,
    description: m.description,
    category: m.category,
    tags: m.tags,
    publisher: m.publisher,
    visibility: m.visibility,
    runtime: m.runtime.type,
    actions: actions.map(presentAction),
    trust_score: m.trustScore,
    certification_tier: m.certificationTier,
    installed,
  };
}

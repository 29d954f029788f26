/**
 * JSON text in a canonical form: each plain object's members in name order, so the same value
 * built with its members in another order gives the same text (for fingerprints and hashes).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, sortedMembers);
}

function sortedMembers(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const members = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(members)
      .sort()
      .map((name) => [name, members[name]]),
  );
}

/**
 * Pure helpers of the key policy form and summary (unit-tested in tests/dashboard/key-policy.test.ts).
 * The form edits every field as text; only the fields changed are sent, an emptied one as `null`
 * (the API then clears it).
 */
import type { RouterInputs, RouterOutputs } from '@/client/trpc/types';

export type KeyPolicy = NonNullable<RouterOutputs['keys']['list']['data'][number]['policy']>;
export type PolicyPatch = Omit<RouterInputs['keys']['setPolicy'], 'key_id'>;
export type PolicyField = keyof PolicyPatch;
export type PolicyValues = Record<PolicyField, string>;

export const POLICY_FIELDS = [
  'modules',
  'actions',
  'min_trust_tier',
  'min_trust_score',
  'requests_per_minute',
  'executions_per_month',
  'spend_cap_usd',
  'expires_at',
  'ip_allow',
  'pins',
] as const satisfies readonly PolicyField[];

const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter(Boolean);

const dollars = (usd: string) => usd.replace(/\.00$/, '');

/** "3 modules · gold · 5 USD/month", or "No limits". */
export function policySummary(
  policy: KeyPolicy | null | undefined,
  formatDate: (iso: string) => string = (iso) => iso.slice(0, 10),
): string {
  if (!policy) return 'No limits';
  const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
  const parts = [
    policy.modules ? count(policy.modules.length, 'module') : undefined,
    policy.actions ? count(policy.actions.length, 'action') : undefined,
    policy.min_trust_tier,
    policy.min_trust_score !== undefined ? `trust score ${policy.min_trust_score}+` : undefined,
    policy.pins ? count(Object.keys(policy.pins).length, 'pinned module') : undefined,
    policy.requests_per_minute !== undefined ? `${policy.requests_per_minute.toLocaleString('en-US')}/min` : undefined,
    policy.executions_per_month !== undefined ? `${count(policy.executions_per_month, 'execution')}/month` : undefined,
    policy.spend_cap_usd !== undefined ? `${dollars(policy.spend_cap_usd)} USD/month` : undefined,
    policy.expires_at ? `expires ${formatDate(policy.expires_at)}` : undefined,
    policy.ip_allow ? count(policy.ip_allow.length, 'IP range') : undefined,
  ].filter((p): p is string => Boolean(p));
  return parts.length ? parts.join(' · ') : 'No limits';
}

/** An ISO instant as the value of a `datetime-local` input, in UTC ("2026-12-01T09:30"). */
export function utcInputValue(iso: string): string {
  return new Date(iso).toISOString().slice(0, 16);
}

/** The form's text for each field of a policy (empty: not set). */
export function valuesOf(policy: KeyPolicy | null | undefined): PolicyValues {
  const p = policy ?? {};
  const text = (n: number | undefined) => (n === undefined ? '' : String(n));
  return {
    modules: (p.modules ?? []).join('\n'),
    actions: (p.actions ?? []).join('\n'),
    min_trust_tier: p.min_trust_tier ?? '',
    min_trust_score: text(p.min_trust_score),
    requests_per_minute: text(p.requests_per_minute),
    executions_per_month: text(p.executions_per_month),
    spend_cap_usd: p.spend_cap_usd ?? '',
    expires_at: p.expires_at ? utcInputValue(p.expires_at) : '',
    ip_allow: (p.ip_allow ?? []).join('\n'),
    pins: Object.entries(p.pins ?? {})
      .map(([module, hash]) => `${module} ${hash}`)
      .join('\n'),
  };
}

const WHOLE = /^\d+$/;

/** A field's text as the API takes it, or a message saying what to write instead. */
function parseField(field: PolicyField, text: string): { value: unknown } | { error: string } {
  switch (field) {
    case 'modules':
    case 'actions':
    case 'ip_allow':
      return { value: [...new Set(lines(text))] };
    case 'min_trust_score':
    case 'requests_per_minute':
    case 'executions_per_month':
      return WHOLE.test(text) ? { value: Number(text) } : { error: 'Enter a whole number.' };
    case 'expires_at': {
      const at = new Date(`${text}:00Z`);
      return Number.isNaN(at.getTime()) ? { error: 'Enter a date and time.' } : { value: at.toISOString() };
    }
    case 'pins': {
      const pins: Record<string, string> = {};
      for (const line of text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)) {
        const [module, hash, ...rest] = line.split(/[\s=]+/);
        if (!module || !hash || rest.length) return { error: `Write each pin as a module name and its definition hash: “${line}”.` };
        pins[module] = hash;
      }
      return { value: pins };
    }
    default:
      return { value: text };
  }
}

/**
 * What to send: the fields whose text changed from `initial`, an emptied one as `null`. Errors
 * by field when a text cannot be read (the API checks the rest and answers its own issues).
 */
export function patchOf(initial: PolicyValues, values: PolicyValues): { patch: PolicyPatch; errors: Partial<Record<PolicyField, string>> } {
  const patch: Record<string, unknown> = {};
  const errors: Partial<Record<PolicyField, string>> = {};
  for (const field of POLICY_FIELDS) {
    const text = values[field].trim();
    if (text === initial[field].trim()) continue;
    if (text === '') {
      patch[field] = null;
      continue;
    }
    const parsed = parseField(field, text);
    if ('error' in parsed) errors[field] = parsed.error;
    else patch[field] = parsed.value;
  }
  return { patch: patch as PolicyPatch, errors };
}

/** The form field an API issue names (`ip_allow.1` -> `ip_allow`), if it is one. */
export function fieldOfIssue(path: string): PolicyField | undefined {
  const head = path.split('.')[0];
  return (POLICY_FIELDS as readonly string[]).includes(head ?? '') ? (head as PolicyField) : undefined;
}

/** Why the key's policy refused requests, in words. */
const REASONS: Record<string, string> = {
  module_not_allowed: 'A module or action the key may not call',
  trust_below_minimum: 'A module below the minimum certification or trust score',
  definition_changed: 'A pinned module that has changed since',
  ip_not_allowed: 'Called from an address not on the list',
  key_expired: 'Used after the key expired',
  requests_per_minute: 'Over the requests per minute',
  executions_per_month: 'Over the executions per month',
  spend_cap_usd: 'Over the spend cap',
};

export function refusalReason(reason: string): string {
  return REASONS[reason] ?? reason.replaceAll('_', ' ');
}

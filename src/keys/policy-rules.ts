/**
 * A key's policy (docs/policies.md): what the key may call and spend, beside the scopes that say
 * which operations it may use. Pure rules, no I/O: admission checks the credential's part
 * (expiry, client address), the execution start checks the call's (modules, actions, trust,
 * pinned definitions), and the lists an agent sees (MCP tools, arm) leave out what it may not call.
 */
import { BlockList, isIP } from 'node:net';
import { parseUsd } from '../billing/money';
import type { CertificationTier } from '../db/schema/certification';

export type TrustTier = 'bronze' | 'silver' | 'gold';
const TIER_RANK: Record<CertificationTier, number> = { none: 0, bronze: 1, silver: 2, gold: 3 };

/** A policy as stored and answered; an absent field sets no limit of its kind. */
export interface StoredKeyPolicy {
  modules?: string[];
  actions?: string[];
  min_trust_tier?: TrustTier;
  min_trust_score?: number;
  pins?: Record<string, string>;
  requests_per_minute?: number;
  executions_per_month?: number;
  spend_cap_usd?: string;
  expires_at?: string;
  ip_allow?: string[];
}

export type PolicyRule = keyof StoredKeyPolicy;
/** The caps a key's policy may set per billing cycle (caps.ts). */
export type CapName = 'executions_per_month' | 'spend_cap_usd';
export type PolicyReason = 'module_not_allowed' | 'trust_below_minimum' | 'definition_changed' | 'ip_not_allowed' | 'key_expired';

export interface PolicyRefusal {
  rule: PolicyRule;
  reason: PolicyReason;
  message: string;
}

/** A stored policy made ready to check (once per key load, not per request). */
export interface KeyPolicy {
  stored: StoredKeyPolicy;
  expiresAtMs?: number;
  /** `spend_cap_usd` in micro-dollars (caps.ts). */
  spendCapMicroUsd?: number;
  ipAllow?: BlockList;
  /** Modules named in `modules` or as `module.*` in `actions`. */
  wholeModules?: Set<string>;
  /** `module.action` entries of `actions`. */
  actions?: Set<string>;
  /** Whether `modules` or `actions` restricts what may be called. */
  restrictsCalls: boolean;
}

/** The policy of a key row, or undefined when it sets nothing. */
export function compilePolicy(stored: StoredKeyPolicy | null | undefined): KeyPolicy | undefined {
  if (!stored || Object.keys(stored).length === 0) return undefined;
  const wholeModules = new Set(stored.modules ?? []);
  const actions = new Set<string>();
  for (const entry of stored.actions ?? []) {
    if (entry.endsWith('.*')) wholeModules.add(entry.slice(0, -2));
    else actions.add(entry);
  }
  return {
    stored,
    expiresAtMs: stored.expires_at ? Date.parse(stored.expires_at) : undefined,
    spendCapMicroUsd: stored.spend_cap_usd === undefined ? undefined : parseUsd(stored.spend_cap_usd),
    ipAllow: stored.ip_allow ? blockListOf(stored.ip_allow) : undefined,
    wholeModules,
    actions,
    restrictsCalls: stored.modules !== undefined || stored.actions !== undefined,
  };
}

/** An address or CIDR block (`10.0.0.0/8`, `2001:db8::/32`, `203.0.113.7`) as BlockList takes it; undefined when it is neither. */
export function parseCidr(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, extra] = entry.split('/');
  if (extra !== undefined) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText) || Number(prefixText) > max) return undefined;
  return { address, prefix: Number(prefixText), family };
}

function blockListOf(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const cidr = parseCidr(entry);
    if (cidr) list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return list;
}

/** An IPv4 client seen on a dual-stack socket (`::ffff:203.0.113.7`) is checked as IPv4. */
function plainAddress(ip: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1]! : ip;
  const version = isIP(address);
  return version === 0 ? undefined : { address, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether the key's policy has expired it by `nowMs` (also checked for the workflow runs it started). */
export function expiryRefusal(policy: KeyPolicy | undefined, nowMs: number): PolicyRefusal | undefined {
  if (policy?.expiresAtMs === undefined || policy.expiresAtMs > nowMs) return undefined;
  return { rule: 'expires_at', reason: 'key_expired', message: `This API key's policy expired it at ${policy.stored.expires_at}.` };
}

/** Whether the credential itself may be used now, from `ip`: its expiry and its allowed addresses. */
export function credentialRefusal(policy: KeyPolicy | undefined, ip: string, nowMs: number): PolicyRefusal | undefined {
  if (!policy) return undefined;
  const expired = expiryRefusal(policy, nowMs);
  if (expired) return expired;
  if (policy.ipAllow) {
    const client = plainAddress(ip);
    if (!client || !policy.ipAllow.check(client.address, client.family)) {
      return {
        rule: 'ip_allow',
        reason: 'ip_not_allowed',
        message: `This API key may be used only from the addresses its policy allows; this request came from ${ip}.`,
      };
    }
  }
  return undefined;
}

/** The parts of a module the call rules read. */
export interface CalledModule {
  name: string;
  trustScore: number;
  certificationTier: string;
}

/** Whether `module.action` is in the key's allow lists (no lists: everything is). */
export function allowsAction(policy: KeyPolicy | undefined, module: string, action: string): boolean {
  if (!policy?.restrictsCalls) return true;
  return policy.wholeModules!.has(module) || policy.actions!.has(`${module}.${action}`);
}

/**
 * Why the key may not call `action` of `module`, or undefined when it may. `hash` gives the
 * module's current definition hash (computed only when the module is pinned).
 */
export function callRefusal(
  policy: KeyPolicy | undefined,
  module: CalledModule,
  action: string,
  hash: () => string,
): PolicyRefusal | undefined {
  if (!policy) return undefined;
  if (!allowsAction(policy, module.name, action)) {
    return {
      rule: policy.stored.actions && !policy.stored.modules ? 'actions' : 'modules',
      reason: 'module_not_allowed',
      message: `This API key's policy does not allow calling ${module.name}.${action}.`,
    };
  }
  return moduleRefusal(policy, module, hash);
}

/** The module-wide rules: trust minimums and a pinned definition. */
export function moduleRefusal(policy: KeyPolicy | undefined, module: CalledModule, hash: () => string): PolicyRefusal | undefined {
  if (!policy) return undefined;
  const { min_trust_tier: minTier, min_trust_score: minScore, pins } = policy.stored;
  const tier = (module.certificationTier in TIER_RANK ? module.certificationTier : 'none') as CertificationTier;
  if (minTier && TIER_RANK[tier] < TIER_RANK[minTier]) {
    return {
      rule: 'min_trust_tier',
      reason: 'trust_below_minimum',
      message: `Module '${module.name}' is certified ${tier}; this API key's policy needs ${minTier} or above.`,
    };
  }
  if (minScore !== undefined && module.trustScore < minScore) {
    return {
      rule: 'min_trust_score',
      reason: 'trust_below_minimum',
      message: `Module '${module.name}' has a trust score of ${module.trustScore}; this API key's policy needs ${minScore} or above.`,
    };
  }
  const pinned = pins?.[module.name];
  if (pinned !== undefined && hash() !== pinned) {
    return {
      rule: 'pins',
      reason: 'definition_changed',
      message: `Module '${module.name}' changed since this API key pinned it (pinned ${pinned}, now ${hash()}); update the pin to call it again.`,
    };
  }
  return undefined;
}

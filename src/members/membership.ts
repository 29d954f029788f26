import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Role } from '../contract/roles';
import type { Executor } from '../db';
import { tenantMembers, tenants, type TenantRow } from '../db/schema';

/** A user of the identity provider: the token's issuer and subject. */
export interface Identity {
  issuer: string;
  subject: string;
}

export interface Membership {
  tenant: TenantRow;
  role: Role;
  email: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The membership an identity acts under: in the tenant `tenantId` names (the `X-Tenant-Id`
 * header) when given, else its oldest. Undefined when it has none (there).
 */
export async function findMembership(db: Executor, identity: Identity, tenantId?: string): Promise<Membership | undefined> {
  if (tenantId !== undefined && !UUID.test(tenantId)) return undefined;
  const [row] = await db
    .select({ tenant: tenants, role: tenantMembers.role, email: tenantMembers.email })
    .from(tenantMembers)
    .innerJoin(tenants, eq(tenants.id, tenantMembers.tenantId))
    .where(
      and(
        eq(tenantMembers.issuer, identity.issuer),
        eq(tenantMembers.subject, identity.subject),
        tenantId === undefined ? undefined : eq(tenantMembers.tenantId, tenantId),
        // A tenant whose deletion was requested is no one's any more.
        isNull(tenants.deletedAt),
      ),
    )
    .orderBy(asc(tenantMembers.createdAt), asc(tenantMembers.tenantId))
    .limit(1);
  return row;
}

/** Whether the tenant has an owner among its members (a tenant made before members existed may not). */
export async function hasOwner(db: Executor, tenantId: string): Promise<boolean> {
  const [row] = await db
    .select({ one: sql`1` })
    .from(tenantMembers)
    .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.role, 'owner')))
    .limit(1);
  return row !== undefined;
}

/**
 * Makes the identity a member of the tenant with `role`; an existing membership is kept as it is.
 * Whether it is a member after (false only when a concurrent owner claim won the one-owner index).
 */
export async function addMember(db: Executor, tenantId: string, identity: Identity, email: string, role: Role): Promise<boolean> {
  await db
    .insert(tenantMembers)
    .values({ tenantId, issuer: identity.issuer, subject: identity.subject, email, role })
    .onConflictDoNothing();
  const [row] = await db
    .select({ role: tenantMembers.role })
    .from(tenantMembers)
    .where(
      and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.issuer, identity.issuer), eq(tenantMembers.subject, identity.subject)),
    )
    .limit(1);
  return row !== undefined;
}

/** Whether the identity owns a tenant (one not being deleted). */
export async function ownsATenant(db: Executor, identity: Identity): Promise<boolean> {
  const [row] = await db
    .select({ one: sql`1` })
    .from(tenantMembers)
    .innerJoin(tenants, eq(tenants.id, tenantMembers.tenantId))
    .where(
      and(
        eq(tenantMembers.issuer, identity.issuer),
        eq(tenantMembers.subject, identity.subject),
        eq(tenantMembers.role, 'owner'),
        isNull(tenants.deletedAt),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Every tenant the identity belongs to, oldest membership first (the default one first). */
export async function listMemberships(db: Executor, identity: Identity) {
  return db
    .select({ tenantId: tenantMembers.tenantId, agentName: tenants.agentName, role: tenantMembers.role })
    .from(tenantMembers)
    .innerJoin(tenants, eq(tenants.id, tenantMembers.tenantId))
    .where(and(eq(tenantMembers.issuer, identity.issuer), eq(tenantMembers.subject, identity.subject), isNull(tenants.deletedAt)))
    .orderBy(asc(tenantMembers.createdAt), asc(tenantMembers.tenantId))
    .limit(200);
}

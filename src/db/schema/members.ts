import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { Role } from '../../contract/roles';
import { timestamps } from './columns';
import { tenants } from './tenants';

/**
 * The people of a tenant: an identity (issuer + subject of the identity provider) with one role
 * (src/contract/roles.ts). A user may belong to several tenants; each tenant has exactly one
 * owner. Made when the user creates the tenant, links it with proof of ownership
 * (docs/auth.md), or accepts an invitation (docs/organizations.md).
 */
export const tenantMembers = pgTable(
  'tenant_members',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    email: text('email').notNull(),
    role: text('role').$type<Role>().notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.issuer, t.subject] }),
    index('tenant_members_identity_idx').on(t.issuer, t.subject, t.createdAt),
    uniqueIndex('tenant_members_one_owner_idx')
      .on(t.tenantId)
      .where(sql`${t.role} = 'owner'`),
  ],
);

export type TenantMemberRow = typeof tenantMembers.$inferSelect;

/** An invitation to join a tenant with a role: a single-use token (its SHA-256 kept) that expires. */
export const memberInvitations = pgTable(
  'member_invitations',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role').$type<Role>().notNull(),
    /** SHA-256 (hex) of the token in the accept link; the token itself is never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    /** The subject of the member who invited, or null for an API key or the operator. */
    invitedBy: text('invited_by'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [index('member_invitations_tenant_idx').on(t.tenantId, t.createdAt)],
);

export type MemberInvitationRow = typeof memberInvitations.$inferSelect;

/**
 * Who did what to a tenant, written in the same transaction as the change (src/audit/record.ts).
 * `changes` is a summary and never holds a secret. Kept for the plan's audit retention.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    actorType: text('actor_type', { enum: ['user', 'key', 'operator', 'system'] }).notNull(),
    actorId: text('actor_id').notNull(),
    actorEmail: text('actor_email'),
    actorKeyId: text('actor_key_id'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    requestId: text('request_id'),
    changes: jsonb('changes').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    index('audit_log_tenant_at_idx').on(t.tenantId, t.at, t.id),
    index('audit_log_operator_at_idx')
      .on(t.at, t.id)
      .where(sql`${t.actorType} = 'operator'`),
  ],
);

export type AuditLogRow = typeof auditLog.$inferSelect;

CREATE TABLE "audit_log" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text NOT NULL,
	"actor_email" text,
	"actor_key_id" text,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"ip" text,
	"user_agent" text,
	"request_id" text,
	"changes" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member_invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" text,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_invitations_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "tenant_members" (
	"tenant_id" uuid NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_members_tenant_id_issuer_subject_pk" PRIMARY KEY("tenant_id","issuer","subject")
);
--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_invitations" ADD CONSTRAINT "member_invitations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_members" ADD CONSTRAINT "tenant_members_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_tenant_at_idx" ON "audit_log" USING btree ("tenant_id","at","id");--> statement-breakpoint
CREATE INDEX "audit_log_operator_at_idx" ON "audit_log" USING btree ("at","id") WHERE "audit_log"."actor_type" = 'operator';--> statement-breakpoint
CREATE INDEX "member_invitations_tenant_idx" ON "member_invitations" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "tenant_members_identity_idx" ON "tenant_members" USING btree ("issuer","subject","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "tenant_members_one_owner_idx" ON "tenant_members" USING btree ("tenant_id") WHERE "tenant_members"."role" = 'owner';--> statement-breakpoint
INSERT INTO "tenant_members" ("tenant_id", "issuer", "subject", "email", "role", "created_at", "updated_at")
SELECT "tenant_id", "issuer", "subject", "email",
  CASE WHEN row_number() OVER (PARTITION BY "tenant_id" ORDER BY "created_at", "issuer", "subject") = 1 THEN 'owner' ELSE 'admin' END,
  "created_at", "updated_at"
FROM "tenant_identities";

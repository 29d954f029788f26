CREATE TABLE "memory_entries" (
	"tenant_id" uuid NOT NULL,
	"agent_id" text NOT NULL,
	"key" text NOT NULL,
	"value" jsonb NOT NULL,
	"tags" text[] DEFAULT '{}' NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memory_entries_tenant_id_agent_id_key_pk" PRIMARY KEY("tenant_id","agent_id","key")
);
--> statement-breakpoint
ALTER TABLE "memory_entries" ADD CONSTRAINT "memory_entries_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memory_entries_agent_updated_idx" ON "memory_entries" USING btree ("tenant_id","agent_id","updated_at" DESC NULLS LAST,"key" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "memory_entries_search_idx" ON "memory_entries" USING gin (to_tsvector('simple', "key" || ' ' || ("value")::text));--> statement-breakpoint
CREATE INDEX "memory_entries_expires_idx" ON "memory_entries" USING btree ("expires_at") WHERE "memory_entries"."expires_at" is not null;
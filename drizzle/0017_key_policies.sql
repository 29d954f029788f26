CREATE TABLE "key_refusals" (
	"key_id" text NOT NULL,
	"tenant_id" uuid NOT NULL,
	"day" date NOT NULL,
	"reason" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "key_refusals_key_id_day_reason_pk" PRIMARY KEY("key_id","day","reason")
);
--> statement-breakpoint
CREATE TABLE "key_usage_counters" (
	"key_id" text NOT NULL,
	"tenant_id" uuid NOT NULL,
	"cycle_start" date NOT NULL,
	"executions" integer DEFAULT 0 NOT NULL,
	"spend_micro_usd" bigint DEFAULT 0 NOT NULL,
	"approaching_at" timestamp with time zone,
	"exceeded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "key_usage_counters_key_id_cycle_start_pk" PRIMARY KEY("key_id","cycle_start")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "policy" jsonb;--> statement-breakpoint
ALTER TABLE "key_refusals" ADD CONSTRAINT "key_refusals_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_refusals" ADD CONSTRAINT "key_refusals_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_usage_counters" ADD CONSTRAINT "key_usage_counters_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_usage_counters" ADD CONSTRAINT "key_usage_counters_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
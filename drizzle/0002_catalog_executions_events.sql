CREATE TABLE "installations" (
	"tenant_id" uuid NOT NULL,
	"module_name" text NOT NULL,
	"installed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "installations_tenant_id_module_name_pk" PRIMARY KEY("tenant_id","module_name")
);
--> statement-breakpoint
CREATE TABLE "module_actions" (
	"module_name" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"input_schema" jsonb NOT NULL,
	"output_schema" jsonb NOT NULL,
	"examples" jsonb NOT NULL,
	"timeout_ms" integer DEFAULT 10000 NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "module_actions_module_name_name_pk" PRIMARY KEY("module_name","name")
);
--> statement-breakpoint
CREATE TABLE "modules" (
	"name" text PRIMARY KEY NOT NULL,
	"version" text NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"tags" text[] DEFAULT '{}' NOT NULL,
	"publisher" text NOT NULL,
	"owner_tenant_id" uuid,
	"visibility" text DEFAULT 'public' NOT NULL,
	"runtime" jsonb NOT NULL,
	"trust_score" integer DEFAULT 50 NOT NULL,
	"certification_tier" text DEFAULT 'none' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executions" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"module" text NOT NULL,
	"action" text NOT NULL,
	"status" text NOT NULL,
	"error_code" text,
	"error_message" text,
	"output" jsonb,
	"latency_ms" integer,
	"request_id" text NOT NULL,
	"key_id" text,
	"input_bytes" integer NOT NULL,
	"output_bytes" integer,
	"source" text DEFAULT 'api' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "installations" ADD CONSTRAINT "installations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "installations" ADD CONSTRAINT "installations_module_name_modules_name_fk" FOREIGN KEY ("module_name") REFERENCES "public"."modules"("name") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "module_actions" ADD CONSTRAINT "module_actions_module_name_modules_name_fk" FOREIGN KEY ("module_name") REFERENCES "public"."modules"("name") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "modules" ADD CONSTRAINT "modules_owner_tenant_id_tenants_id_fk" FOREIGN KEY ("owner_tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executions" ADD CONSTRAINT "executions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "modules_owner_idx" ON "modules" USING btree ("owner_tenant_id");--> statement-breakpoint
CREATE INDEX "modules_category_idx" ON "modules" USING btree ("category");--> statement-breakpoint
CREATE INDEX "executions_tenant_created_idx" ON "executions" USING btree ("tenant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "executions_running_idx" ON "executions" USING btree ("status");--> statement-breakpoint
CREATE INDEX "events_tenant_created_idx" ON "events" USING btree ("tenant_id","created_at");
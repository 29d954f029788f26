CREATE TABLE "certification_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"module_name" text NOT NULL,
	"version" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"trigger" text NOT NULL,
	"requested_by_tenant_id" uuid,
	"tier" text,
	"previous_tier" text,
	"checks" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"checks_passed" integer DEFAULT 0 NOT NULL,
	"checks_total" integer DEFAULT 0 NOT NULL,
	"p95_ms" integer,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "certification_runs" ADD CONSTRAINT "certification_runs_module_name_modules_name_fk" FOREIGN KEY ("module_name") REFERENCES "public"."modules"("name") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE UNIQUE INDEX "certification_runs_active_idx" ON "certification_runs" USING btree ("module_name","version") WHERE status in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "certification_runs_module_idx" ON "certification_runs" USING btree ("module_name","created_at","id");
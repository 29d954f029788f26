ALTER TABLE "workflow_runs" ADD COLUMN "origin" jsonb DEFAULT '{"type":"api"}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "trigger_depth" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "schedule" jsonb;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "next_run_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "trigger" jsonb;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "trigger_event" text;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "saved_scopes" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "saved_key_id" text;--> statement-breakpoint
CREATE INDEX "workflow_runs_request_idx" ON "workflow_runs" USING btree ("tenant_id","request_id");--> statement-breakpoint
CREATE INDEX "workflows_next_run_idx" ON "workflows" USING btree ("next_run_at") WHERE "workflows"."next_run_at" is not null;--> statement-breakpoint
CREATE INDEX "workflows_trigger_idx" ON "workflows" USING btree ("tenant_id","trigger_event") WHERE "workflows"."trigger_event" is not null;
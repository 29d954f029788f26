ALTER TABLE "workflow_runs" ADD COLUMN "priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "admitted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "start_after" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "concurrency_key" text;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "throttle_key" text;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "debounce_key" text;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "flow" jsonb;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "workflow_runs_waiting_turn_idx" ON "workflow_runs" USING btree ("workflow_id","created_at") WHERE "workflow_runs"."admitted_at" is null and "workflow_runs"."status" = 'queued';--> statement-breakpoint
UPDATE "workflow_runs" SET "admitted_at" = "created_at";

CREATE TABLE "workflow_event_inbox" (
	"event_id" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workflow_run_steps" ADD COLUMN "wait" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_run_steps" ADD COLUMN "wait_event" text;--> statement-breakpoint
ALTER TABLE "workflow_run_steps" ADD COLUMN "wake_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workflow_run_steps" ADD COLUMN "decision" jsonb;--> statement-breakpoint
CREATE INDEX "workflow_run_steps_listening_idx" ON "workflow_run_steps" USING btree ("tenant_id","wait_event") WHERE "workflow_run_steps"."status" = 'waiting';--> statement-breakpoint
CREATE INDEX "workflow_run_steps_wake_idx" ON "workflow_run_steps" USING btree ("wake_at") WHERE "workflow_run_steps"."status" = 'waiting';
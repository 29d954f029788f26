ALTER TABLE "webhook_subscriptions" ALTER COLUMN "url" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "seq" bigserial NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "kind" text DEFAULT 'push' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secret_encrypted" text;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secret_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "headers" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "filter" text;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "rate_limit_per_second" integer;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "failure_alert_threshold" integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "failing_since" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "events_tenant_xid_seq_idx" ON "events" USING btree ("tenant_id","xid","seq");
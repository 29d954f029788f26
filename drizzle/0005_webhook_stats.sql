CREATE TABLE "webhook_stats" (
	"subscription_id" text NOT NULL,
	"shard" smallint NOT NULL,
	"deliveries_succeeded" bigint DEFAULT 0 NOT NULL,
	"deliveries_failed" bigint DEFAULT 0 NOT NULL,
	"attempts_timed" bigint DEFAULT 0 NOT NULL,
	"attempt_latency_total_ms" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "webhook_stats_subscription_id_shard_pk" PRIMARY KEY("subscription_id","shard")
);
--> statement-breakpoint
ALTER TABLE "webhook_stats" ADD CONSTRAINT "webhook_stats_subscription_id_webhook_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."webhook_subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" DROP COLUMN "deliveries_succeeded";--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" DROP COLUMN "deliveries_failed";--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" DROP COLUMN "attempts_timed";--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" DROP COLUMN "attempt_latency_total_ms";
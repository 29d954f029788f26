DROP INDEX "executions_running_idx";--> statement-breakpoint
CREATE INDEX "executions_running_idx" ON "executions" USING btree ("created_at") WHERE status = 'running';
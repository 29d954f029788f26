ALTER TABLE "invoices" ADD COLUMN "billed_to_name" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "billed_to_email" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "due_at" timestamp with time zone;--> statement-breakpoint
UPDATE "invoices" AS i SET "billed_to_name" = t."agent_name", "billed_to_email" = t."owner_email", "due_at" = i."created_at" + interval '14 days' FROM "tenants" AS t WHERE t."id" = i."tenant_id";--> statement-breakpoint
ALTER TABLE "invoices" ALTER COLUMN "billed_to_name" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ALTER COLUMN "billed_to_email" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ALTER COLUMN "due_at" SET NOT NULL;

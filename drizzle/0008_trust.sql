CREATE TABLE "trust_feedback" (
	"module_name" text NOT NULL,
	"tenant_id" uuid NOT NULL,
	"rating" smallint NOT NULL,
	"comment" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trust_feedback_module_name_tenant_id_pk" PRIMARY KEY("module_name","tenant_id"),
	CONSTRAINT "trust_feedback_rating_check" CHECK ("trust_feedback"."rating" between 1 and 5)
);
--> statement-breakpoint
CREATE TABLE "trust_score_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"module_name" text NOT NULL,
	"score" integer NOT NULL,
	"previous_score" integer NOT NULL,
	"reason" text NOT NULL,
	"components" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "trust_feedback" ADD CONSTRAINT "trust_feedback_module_name_modules_name_fk" FOREIGN KEY ("module_name") REFERENCES "public"."modules"("name") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "trust_feedback" ADD CONSTRAINT "trust_feedback_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trust_score_history" ADD CONSTRAINT "trust_score_history_module_name_modules_name_fk" FOREIGN KEY ("module_name") REFERENCES "public"."modules"("name") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "trust_score_history_module_idx" ON "trust_score_history" USING btree ("module_name","id");--> statement-breakpoint
CREATE INDEX "executions_module_created_idx" ON "executions" USING btree ("module","created_at");
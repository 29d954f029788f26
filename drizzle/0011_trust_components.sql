CREATE TABLE "trust_components" (
	"module_name" text PRIMARY KEY NOT NULL,
	"inputs" jsonb NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "trust_components" ADD CONSTRAINT "trust_components_module_name_modules_name_fk" FOREIGN KEY ("module_name") REFERENCES "public"."modules"("name") ON DELETE cascade ON UPDATE cascade;
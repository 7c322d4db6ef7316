ALTER TABLE "links" ADD COLUMN "health" text DEFAULT 'unchecked' NOT NULL;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "health_reason" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "health_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "health_due_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "links_health_due_at_idx" ON "links" USING btree ("health_due_at") WHERE not "links"."disabled";--> statement-breakpoint
CREATE INDEX "links_health_broken_idx" ON "links" USING btree ("workspace_id","id") WHERE "links"."health" = 'broken';--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_health_check" CHECK ("links"."health" in ('ok', 'broken', 'unchecked'));
DROP INDEX "domains_name_key";--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "verification_token" text;--> statement-breakpoint
-- Domains that existed before verification (CONTRACT §14) keep serving: they count as verified.
UPDATE "domains" SET "verified_at" = now() WHERE "verified_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "domains_user_id_name_key" ON "domains" USING btree ("user_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "domains_name_key" ON "domains" USING btree ("name") WHERE "domains"."verified_at" is not null;
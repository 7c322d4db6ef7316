ALTER TABLE "link_stats_daily" DROP CONSTRAINT "link_stats_daily_dimension_check";--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "tags" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "tag_keys" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "links_tag_keys_idx" ON "links" USING gin ("tag_keys") WHERE "links"."tag_keys" <> '{}'::text[];--> statement-breakpoint
ALTER TABLE "link_stats_daily" ADD CONSTRAINT "link_stats_daily_dimension_check" CHECK ("link_stats_daily"."dimension" in ('clicks', 'clicks_hour', 'country', 'platform', 'browser', 'device', 'language', 'referrer', 'unique', 'bots', 'bots_hour', 'imported', 'variant'));
-- CONTRACT §23 (docs/adr/0049-live-migration.md): imported click totals on links and in the rollups (dimension
-- `imported`), a live migration's source cursor on its import job, and the alias of each refused row.
ALTER TABLE "account_stats_daily" DROP CONSTRAINT "account_stats_daily_dimension_check";--> statement-breakpoint
ALTER TABLE "link_stats_daily" DROP CONSTRAINT "link_stats_daily_dimension_check";--> statement-breakpoint
ALTER TABLE "import_errors" ADD COLUMN "alias" text;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "source_cursor" text;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "source_cursors_seen" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "imported_clicks" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "account_stats_daily" ADD CONSTRAINT "account_stats_daily_dimension_check" CHECK ("account_stats_daily"."dimension" in ('clicks', 'country', 'platform', 'browser', 'device', 'language', 'referrer', 'unique', 'bots', 'link', 'imported'));--> statement-breakpoint
ALTER TABLE "link_stats_daily" ADD CONSTRAINT "link_stats_daily_dimension_check" CHECK ("link_stats_daily"."dimension" in ('clicks', 'clicks_hour', 'country', 'platform', 'browser', 'device', 'language', 'referrer', 'unique', 'bots', 'bots_hour', 'imported'));
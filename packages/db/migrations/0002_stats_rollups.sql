CREATE TABLE "link_stats_daily" (
	"link_id" integer NOT NULL,
	"dimension" text NOT NULL,
	"day" date NOT NULL,
	"value" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "link_stats_daily_link_id_dimension_day_value_pk" PRIMARY KEY("link_id","dimension","day","value"),
	CONSTRAINT "link_stats_daily_dimension_check" CHECK ("link_stats_daily"."dimension" in ('clicks', 'clicks_hour', 'country', 'platform', 'browser', 'device', 'language', 'referrer'))
);
--> statement-breakpoint
ALTER TABLE "link_stats_daily" ADD CONSTRAINT "link_stats_daily_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Backfill: roll up the clicks recorded before this migration, exactly as core's recordClicks does for new ones.
INSERT INTO "link_stats_daily" ("link_id", "dimension", "day", "value", "count")
SELECT c.link_id, d.dimension, (c.created_at AT TIME ZONE 'UTC')::date, d.value, count(*)
FROM "clicks" c
CROSS JOIN LATERAL (VALUES
	('clicks', ''),
	('clicks_hour', to_char(c.created_at AT TIME ZONE 'UTC', 'HH24')),
	('country', coalesce(left(c.country, 255), '')),
	('platform', coalesce(left(c.platform, 255), '')),
	('browser', coalesce(left(c.browser, 255), '')),
	('device', coalesce(left(c.device, 255), '')),
	('language', coalesce(left(c.language, 255), '')),
	('referrer', coalesce(left(c.referrer, 255), ''))
) AS d(dimension, value)
GROUP BY 1, 2, 3, 4;

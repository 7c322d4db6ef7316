CREATE TABLE "account_stats_daily" (
	"user_id" integer NOT NULL,
	"dimension" text NOT NULL,
	"day" date NOT NULL,
	"value" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "account_stats_daily_user_id_dimension_day_value_pk" PRIMARY KEY("user_id","dimension","day","value"),
	CONSTRAINT "account_stats_daily_dimension_check" CHECK ("account_stats_daily"."dimension" in ('clicks', 'country', 'platform', 'browser', 'device', 'language', 'referrer', 'unique', 'bots', 'link'))
);
--> statement-breakpoint
CREATE TABLE "domain_visits_daily" (
	"domain_id" integer NOT NULL,
	"kind" text NOT NULL,
	"day" date NOT NULL,
	"value" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "domain_visits_daily_domain_id_kind_day_value_pk" PRIMARY KEY("domain_id","kind","day","value"),
	CONSTRAINT "domain_visits_daily_kind_check" CHECK ("domain_visits_daily"."kind" in ('index', 'not_found', 'disabled', 'expired', 'alias', 'bots'))
);
--> statement-breakpoint
CREATE TABLE "link_visitors" (
	"link_id" integer NOT NULL,
	"day" date NOT NULL,
	"visitor" bigint NOT NULL,
	CONSTRAINT "link_visitors_link_id_day_visitor_pk" PRIMARY KEY("link_id","day","visitor")
);
--> statement-breakpoint
CREATE TABLE "visitor_salts" (
	"day" date PRIMARY KEY NOT NULL,
	"salt" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "link_stats_daily" DROP CONSTRAINT "link_stats_daily_dimension_check";--> statement-breakpoint
ALTER TABLE "account_stats_daily" ADD CONSTRAINT "account_stats_daily_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domain_visits_daily" ADD CONSTRAINT "domain_visits_daily_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_stats_daily" ADD CONSTRAINT "link_stats_daily_dimension_check" CHECK ("link_stats_daily"."dimension" in ('clicks', 'clicks_hour', 'country', 'platform', 'browser', 'device', 'language', 'referrer', 'unique', 'bots', 'bots_hour'));--> statement-breakpoint
-- Accounts' rollups start from the links' rollups written before this migration (CONTRACT §21).
INSERT INTO "account_stats_daily" ("user_id", "dimension", "day", "value", "count")
SELECT l."user_id", s."dimension", s."day", s."value", sum(s."count")
FROM "link_stats_daily" s JOIN "links" l ON l."id" = s."link_id"
WHERE s."dimension" IN ('clicks', 'country', 'platform', 'browser', 'device', 'language', 'referrer')
GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO "account_stats_daily" ("user_id", "dimension", "day", "value", "count")
SELECT l."user_id", 'link', s."day", s."link_id"::text, sum(s."count")
FROM "link_stats_daily" s JOIN "links" l ON l."id" = s."link_id"
WHERE s."dimension" = 'clicks'
GROUP BY 1, 3, 4;

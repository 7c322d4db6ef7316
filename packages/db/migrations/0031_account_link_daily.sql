-- The accounts' clicks per link (dimension `link` of account_stats_daily) move into a table of their own
-- (docs/adr/0058-account-link-rollups-hot.md): the top links' index holds `count`, and while it was on
-- account_stats_daily no update of any of its rows could be HOT.
CREATE TABLE "account_link_daily" (
	"workspace_id" integer NOT NULL,
	"day" date NOT NULL,
	"link_id" integer NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "account_link_daily_workspace_id_day_link_id_pk" PRIMARY KEY("workspace_id","day","link_id")
);
--> statement-breakpoint
-- Every `link` row's value is a link id as text (recordClicks, the importer, migration 0020's backfill);
-- a value that is none (never read as a link by the top links) is not moved, and goes with the rest.
INSERT INTO "account_link_daily" ("workspace_id", "day", "link_id", "count")
SELECT "workspace_id", "day", "value"::int, "count" FROM "account_stats_daily"
WHERE "dimension" = 'link' AND CASE WHEN "value" ~ '^[1-9][0-9]{0,9}$' THEN "value"::bigint <= 2147483647 ELSE false END;
--> statement-breakpoint
DELETE FROM "account_stats_daily" WHERE "dimension" = 'link';
--> statement-breakpoint
ALTER TABLE "account_link_daily" ADD CONSTRAINT "account_link_daily_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_link_daily_count_idx" ON "account_link_daily" USING btree ("workspace_id","day","count" DESC NULLS LAST,"link_id");--> statement-breakpoint
DROP INDEX "account_stats_daily_link_count_idx";--> statement-breakpoint
ALTER TABLE "account_stats_daily" DROP CONSTRAINT "account_stats_daily_dimension_check";--> statement-breakpoint
ALTER TABLE "account_stats_daily" ADD CONSTRAINT "account_stats_daily_dimension_check" CHECK ("account_stats_daily"."dimension" in ('clicks', 'country', 'platform', 'browser', 'device', 'language', 'referrer', 'unique', 'bots', 'imported'));--> statement-breakpoint
-- With `count` in no index, an upsert that finds room on its row's page is a HOT update (no new
-- primary-key entry): a fifth of each page is kept free for them. Pages written before this migration get
-- their room as the moved rows' space is vacuumed.
ALTER TABLE "account_stats_daily" SET (fillfactor = 80);

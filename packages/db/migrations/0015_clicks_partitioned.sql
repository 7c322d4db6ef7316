-- clicks, partitioned by UTC month of created_at (CONTRACT §20, docs/adr/0025-clicks-partitioned-by-month.md).
-- The old table is renamed aside, the partitioned one takes its name, the rows are copied and the old
-- table dropped. clicks has no key (ADR 0014), so no primary key has to grow the partition key; its one
-- index is made on the parent (every partition gets its own). The trigger that deletes the clicks of
-- deleted links lives on links and names clicks at run time, so it needs nothing.
-- Partitions are clicks_YYYY_MM, FROM the month's first instant (UTC) TO the next month's; clicks_default
-- takes any click outside them (a skewed clock), and core's ensureClickPartitions moves such rows into
-- their month's partition when it makes it.
ALTER TABLE "clicks" RENAME TO "clicks_unpartitioned";
--> statement-breakpoint
ALTER INDEX "clicks_link_id_created_at_idx" RENAME TO "clicks_unpartitioned_link_id_created_at_idx";
--> statement-breakpoint
CREATE TABLE "clicks" (
	"link_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"country" text,
	"platform" text,
	"browser" text,
	"device" text,
	"language" text,
	"referrer" text,
	"count" integer DEFAULT 1 NOT NULL
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
CREATE INDEX "clicks_link_id_created_at_idx" ON "clicks" USING btree ("link_id","created_at");
--> statement-breakpoint
CREATE TABLE "clicks_default" PARTITION OF "clicks" DEFAULT;
--> statement-breakpoint
-- A partition for every month from the oldest click's to the newest's, and for this month and the next.
DO $$
DECLARE
  first_month timestamp;
  last_month timestamp;
  this_month timestamp := date_trunc('month', now() AT TIME ZONE 'UTC');
  m timestamp;
BEGIN
  SELECT date_trunc('month', min(created_at) AT TIME ZONE 'UTC'), date_trunc('month', max(created_at) AT TIME ZONE 'UTC')
    INTO first_month, last_month FROM "clicks_unpartitioned";
  first_month := least(coalesce(first_month, this_month), this_month);
  last_month := greatest(coalesce(last_month, this_month), this_month + interval '1 month');
  m := first_month;
  WHILE m <= last_month LOOP
    EXECUTE format(
      'CREATE TABLE IF NOT EXISTS %I PARTITION OF "clicks" FOR VALUES FROM (%L) TO (%L)',
      'clicks_' || to_char(m, 'YYYY_MM'),
      to_char(m, 'YYYY-MM-DD') || ' 00:00:00+00',
      to_char(m + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00'
    );
    m := m + interval '1 month';
  END LOOP;
END;
$$;
--> statement-breakpoint
INSERT INTO "clicks" ("link_id", "created_at", "country", "platform", "browser", "device", "language", "referrer", "count")
SELECT "link_id", "created_at", "country", "platform", "browser", "device", "language", "referrer", "count" FROM "clicks_unpartitioned";
--> statement-breakpoint
DROP TABLE "clicks_unpartitioned";

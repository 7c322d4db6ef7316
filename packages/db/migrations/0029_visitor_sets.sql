CREATE TABLE "link_visitor_sets" (
	"link_id" integer NOT NULL,
	"day" date NOT NULL,
	"bucket" smallint NOT NULL,
	"visitors" bigint[] NOT NULL,
	"added" integer NOT NULL,
	"spill" bigint[],
	CONSTRAINT "link_visitor_sets_link_id_day_bucket_pk" PRIMARY KEY("link_id","day","bucket")
);
--> statement-breakpoint
-- Half of each page left free: a bucket's row is rewritten by every batch that brings it a new visitor,
-- and a rewrite that fits on its page is a HOT update (no new index entry) (docs/adr/0056-visitor-sets.md).
ALTER TABLE "link_visitor_sets" SET (fillfactor = 50);
--> statement-breakpoint
-- The visitors recorded before the sets (today's and yesterday's, one row each) move into their buckets
-- (the hash's top 7 bits, as core's recordClicks computes them), so a visitor seen before the upgrade is
-- not counted again after it. A bucket may end up over the 200 a write fills to: it is then full, and
-- the day's later new visitors in it go to link_visitors, as for any full bucket (docs/adr/0056-visitor-sets.md).
INSERT INTO "link_visitor_sets" ("link_id", "day", "bucket", "visitors", "added")
SELECT "link_id", "day", (("visitor" >> 57) & 127)::smallint, array_agg("visitor" ORDER BY "visitor"), 0
FROM "link_visitors" GROUP BY 1, 2, 3;
--> statement-breakpoint
DELETE FROM "link_visitors";

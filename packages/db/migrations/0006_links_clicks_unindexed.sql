DROP INDEX "links_user_id_clicks_id_idx";
--> statement-breakpoint
-- Room on each page for HOT updates of the counter (applies to pages written from now on).
ALTER TABLE "links" SET (fillfactor = 90);

-- Statistics on the trigrams of each searchable column: ANALYZE records the most common ones and the
-- share of rows that contain each, and a search leaves those out of what it asks the trigram index
-- for (packages/core/src/links/search.ts, docs/adr/0012-links-index-set-and-search.md).
CREATE STATISTICS "links_alias_trgm_stats" ON (show_trgm("alias")) FROM "links";
--> statement-breakpoint
CREATE STATISTICS "links_url_trgm_stats" ON (show_trgm("url")) FROM "links";
--> statement-breakpoint
CREATE STATISTICS "links_title_trgm_stats" ON (show_trgm("title")) FROM "links";
--> statement-breakpoint
ANALYZE "links";

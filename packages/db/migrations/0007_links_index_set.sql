DROP INDEX "links_domain_id_idx";--> statement-breakpoint
DROP INDEX "links_space_id_idx";--> statement-breakpoint
DROP INDEX "links_title_trgm_idx";--> statement-breakpoint
CREATE INDEX "links_space_id_idx" ON "links" USING btree ("space_id") WHERE "links"."space_id" is not null;--> statement-breakpoint
CREATE INDEX "links_title_trgm_idx" ON "links" USING gin ("title" gin_trgm_ops) WHERE "links"."title" is not null;
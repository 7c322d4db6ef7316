ALTER TABLE "domains" ADD COLUMN "apple_app_site_association" text;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "asset_links" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "og_title" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "og_description" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "og_image" text;
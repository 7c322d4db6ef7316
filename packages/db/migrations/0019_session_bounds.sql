ALTER TABLE "sessions" ADD COLUMN "api_key_id" integer;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "scopes" text[];--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_api_key_id_idx" ON "sessions" USING btree ("api_key_id");--> statement-breakpoint
-- Sessions made before this migration do not say what opened them: any API key could have, with any
-- scopes. They end here (everyone signs in once more) rather than keep every scope (docs/adr/0033-session-bounds.md).
DELETE FROM "sessions";

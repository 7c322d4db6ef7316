-- Failed-try counters (docs/adr/0020-failed-try-limits.md). UNLOGGED: no write-ahead log for a row
-- that is bumped on every wrong password, at the price of losing the counters in a crash.
CREATE UNLOGGED TABLE "failed_tries" (
	"key" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "failed_tries_expires_at_idx" ON "failed_tries" USING btree ("expires_at");

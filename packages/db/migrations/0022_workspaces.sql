-- CONTRACT §24 (docs/adr/0044-workspaces.md): workspaces own what users owned. Each existing user gets a
-- personal workspace with the user's own id, so the owner columns keep their values and are only renamed
-- user_id -> workspace_id: no owned row is rewritten, whatever the number of links.
CREATE TABLE "workspaces" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"personal_user_id" integer,
	"require_sso" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
INSERT INTO "workspaces" ("id", "name", "personal_user_id", "created_at", "updated_at")
  SELECT "id", "name", "id", "created_at", "created_at" FROM "users" ORDER BY "id";--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('workspaces', 'id'), coalesce((SELECT max("id") FROM "workspaces"), 0) + 1, false);--> statement-breakpoint
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_personal_user_id_users_id_fk" FOREIGN KEY ("personal_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workspaces_personal_user_id_key" ON "workspaces" USING btree ("personal_user_id");--> statement-breakpoint
CREATE TABLE "workspace_members" (
	"workspace_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspace_members_workspace_id_user_id_pk" PRIMARY KEY("workspace_id","user_id"),
	CONSTRAINT "workspace_members_role_check" CHECK ("workspace_members"."role" in ('viewer', 'editor', 'admin', 'owner'))
);--> statement-breakpoint
INSERT INTO "workspace_members" ("workspace_id", "user_id", "role", "created_at") SELECT "id", "id", 'owner', "created_at" FROM "users";--> statement-breakpoint
ALTER TABLE "domains" DROP CONSTRAINT "domains_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "domains" RENAME COLUMN "user_id" TO "workspace_id";--> statement-breakpoint
ALTER INDEX "domains_user_id_name_key" RENAME TO "domains_workspace_id_name_key";--> statement-breakpoint
ALTER INDEX "domains_user_id_id_idx" RENAME TO "domains_workspace_id_id_idx";--> statement-breakpoint
ALTER TABLE "spaces" DROP CONSTRAINT "spaces_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "spaces" RENAME COLUMN "user_id" TO "workspace_id";--> statement-breakpoint
ALTER INDEX "spaces_user_id_name_key" RENAME TO "spaces_workspace_id_name_key";--> statement-breakpoint
ALTER INDEX "spaces_user_id_id_idx" RENAME TO "spaces_workspace_id_id_idx";--> statement-breakpoint
ALTER TABLE "pixels" DROP CONSTRAINT "pixels_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "pixels" RENAME COLUMN "user_id" TO "workspace_id";--> statement-breakpoint
ALTER INDEX "pixels_user_id_id_idx" RENAME TO "pixels_workspace_id_id_idx";--> statement-breakpoint
ALTER TABLE "links" DROP CONSTRAINT "links_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "links" RENAME COLUMN "user_id" TO "workspace_id";--> statement-breakpoint
ALTER INDEX "links_user_id_id_idx" RENAME TO "links_workspace_id_id_idx";--> statement-breakpoint
ALTER INDEX "links_user_id_alias_id_idx" RENAME TO "links_workspace_id_alias_id_idx";--> statement-breakpoint
ALTER INDEX "links_user_id_url_id_idx" RENAME TO "links_workspace_id_url_id_idx";--> statement-breakpoint
ALTER INDEX "links_user_id_title_id_idx" RENAME TO "links_workspace_id_title_id_idx";--> statement-breakpoint
ALTER TABLE "account_stats_daily" DROP CONSTRAINT "account_stats_daily_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "account_stats_daily" RENAME COLUMN "user_id" TO "workspace_id";--> statement-breakpoint
ALTER TABLE "import_jobs" DROP CONSTRAINT "import_jobs_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "import_jobs" RENAME COLUMN "user_id" TO "workspace_id";--> statement-breakpoint
ALTER INDEX "import_jobs_user_id_idempotency_key_key" RENAME TO "import_jobs_workspace_id_idempotency_key_key";--> statement-breakpoint
ALTER INDEX "import_jobs_user_id_id_idx" RENAME TO "import_jobs_workspace_id_id_idx";--> statement-breakpoint
ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "webhooks" RENAME COLUMN "user_id" TO "workspace_id";--> statement-breakpoint
ALTER INDEX "webhooks_user_id_id_idx" RENAME TO "webhooks_workspace_id_id_idx";--> statement-breakpoint
ALTER TABLE "link_counts" RENAME COLUMN "user_id" TO "workspace_id";--> statement-breakpoint
ALTER TABLE "webhook_events" RENAME COLUMN "user_id" TO "workspace_id";--> statement-breakpoint
ALTER TABLE "account_stats_daily" RENAME CONSTRAINT "account_stats_daily_user_id_dimension_day_value_pk" TO "account_stats_daily_workspace_id_dimension_day_value_pk";--> statement-breakpoint
ALTER TABLE "link_counts" RENAME CONSTRAINT "link_counts_user_id_shard_pk" TO "link_counts_workspace_id_shard_pk";--> statement-breakpoint
-- NOT VALID, then VALIDATE: checking the existing rows takes a lock that lets reads and writes go on.
ALTER TABLE "account_stats_daily" ADD CONSTRAINT "account_stats_daily_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "pixels" ADD CONSTRAINT "pixels_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "spaces" ADD CONSTRAINT "spaces_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "account_stats_daily" VALIDATE CONSTRAINT "account_stats_daily_workspace_id_workspaces_id_fk";--> statement-breakpoint
ALTER TABLE "domains" VALIDATE CONSTRAINT "domains_workspace_id_workspaces_id_fk";--> statement-breakpoint
ALTER TABLE "import_jobs" VALIDATE CONSTRAINT "import_jobs_workspace_id_workspaces_id_fk";--> statement-breakpoint
ALTER TABLE "links" VALIDATE CONSTRAINT "links_workspace_id_workspaces_id_fk";--> statement-breakpoint
ALTER TABLE "pixels" VALIDATE CONSTRAINT "pixels_workspace_id_workspaces_id_fk";--> statement-breakpoint
ALTER TABLE "spaces" VALIDATE CONSTRAINT "spaces_workspace_id_workspaces_id_fk";--> statement-breakpoint
ALTER TABLE "webhooks" VALIDATE CONSTRAINT "webhooks_workspace_id_workspaces_id_fk";--> statement-breakpoint
-- link_counts per workspace (migration 0004's trigger, its column renamed).
CREATE OR REPLACE FUNCTION link_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  shard_no smallint := floor(random() * 16)::smallint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO link_counts (workspace_id, shard, n)
      SELECT workspace_id, shard_no, count(*) FROM inserted_links GROUP BY workspace_id ORDER BY workspace_id
      ON CONFLICT (workspace_id, shard) DO UPDATE SET n = link_counts.n + excluded.n;
  ELSE
    INSERT INTO link_counts (workspace_id, shard, n)
      SELECT workspace_id, shard_no, -count(*) FROM deleted_links GROUP BY workspace_id ORDER BY workspace_id
      ON CONFLICT (workspace_id, shard) DO UPDATE SET n = link_counts.n + excluded.n;
  END IF;
  RETURN NULL;
END;
$$;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "workspace_id" integer;--> statement-breakpoint
UPDATE "api_keys" SET "workspace_id" = "user_id";--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "workspace_id" SET NOT NULL;--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"workspace_id" integer NOT NULL,
	"actor_user_id" integer,
	"actor_key_id" integer,
	"actor_session_id" integer,
	"action" text NOT NULL,
	"object_type" text NOT NULL,
	"object_id" text,
	"changes" jsonb,
	"client_group" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE TABLE "workspace_invitations" (
	"id" serial PRIMARY KEY NOT NULL,
	"workspace_id" integer NOT NULL,
	"token_hash" text NOT NULL,
	"role" text NOT NULL,
	"email" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_by" integer,
	CONSTRAINT "workspace_invitations_role_check" CHECK ("workspace_invitations"."role" in ('viewer', 'editor', 'admin', 'owner'))
);--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "workspace_id" integer;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "is_sso" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "oidc_subject" text;--> statement-breakpoint
ALTER TABLE "workspace_invitations" ADD CONSTRAINT "workspace_invitations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_invitations" ADD CONSTRAINT "workspace_invitations_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_invitations" ADD CONSTRAINT "workspace_invitations_accepted_by_users_id_fk" FOREIGN KEY ("accepted_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_members" ADD CONSTRAINT "workspace_members_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_members" ADD CONSTRAINT "workspace_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_workspace_id_id_idx" ON "audit_log" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "audit_log_created_at_idx" ON "audit_log" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_invitations_token_hash_key" ON "workspace_invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "workspace_invitations_workspace_id_id_idx" ON "workspace_invitations" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "workspace_members_user_id_idx" ON "workspace_members" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_workspace_id_idx" ON "api_keys" USING btree ("workspace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_oidc_subject_key" ON "users" USING btree ("oidc_subject");--> statement-breakpoint
-- The audit log cannot be rewritten (CONTRACT §24): UPDATE, DELETE and TRUNCATE are refused unless the
-- retention job set shortener.audit_retention = 'on' for its own transaction (set_config(..., true)).
CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND coalesce(current_setting('shortener.audit_retention', true), '') = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'the audit log cannot be changed (%)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;--> statement-breakpoint
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();--> statement-breakpoint
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON "audit_log" FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();

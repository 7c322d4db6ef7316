CREATE TABLE "api_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "clicks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"link_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"country" text,
	"platform" text,
	"browser" text,
	"device" text,
	"language" text,
	"referrer" text
);
--> statement-breakpoint
CREATE TABLE "domains" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"index_page" text,
	"not_found_page" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "import_errors" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"job_id" integer NOT NULL,
	"line" integer NOT NULL,
	"field" text,
	"message" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "import_jobs" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"idempotency_key" text,
	"default_domain_id" integer,
	"source" text,
	"total_rows" integer DEFAULT 0 NOT NULL,
	"processed_rows" integer DEFAULT 0 NOT NULL,
	"created_rows" integer DEFAULT 0 NOT NULL,
	"skipped_rows" integer DEFAULT 0 NOT NULL,
	"failed_rows" integer DEFAULT 0 NOT NULL,
	"checkpoint_line" integer DEFAULT 1 NOT NULL,
	"failure_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "link_pixels" (
	"link_id" integer NOT NULL,
	"pixel_id" integer NOT NULL,
	CONSTRAINT "link_pixels_link_id_pixel_id_pk" PRIMARY KEY("link_id","pixel_id")
);
--> statement-breakpoint
CREATE TABLE "links" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"domain_id" integer NOT NULL,
	"space_id" integer,
	"alias" text NOT NULL,
	"url" text NOT NULL,
	"title" text,
	"password_hash" text,
	"disabled" boolean DEFAULT false NOT NULL,
	"privacy" smallint DEFAULT 0 NOT NULL,
	"privacy_password_hash" text,
	"expiration_url" text,
	"expiration_clicks" integer DEFAULT 0 NOT NULL,
	"ends_at" timestamp with time zone,
	"target_type" smallint DEFAULT 0 NOT NULL,
	"country_target" jsonb,
	"platform_target" jsonb,
	"language_target" jsonb,
	"rotation_target" jsonb,
	"last_rotation" integer,
	"clicks" bigint DEFAULT 0 NOT NULL,
	"import_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pixels" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spaces" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"color" smallint DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" serial PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"role" text DEFAULT 'user' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clicks" ADD CONSTRAINT "clicks_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_errors" ADD CONSTRAINT "import_errors_job_id_import_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."import_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_default_domain_id_domains_id_fk" FOREIGN KEY ("default_domain_id") REFERENCES "public"."domains"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_pixels" ADD CONSTRAINT "link_pixels_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_pixels" ADD CONSTRAINT "link_pixels_pixel_id_pixels_id_fk" FOREIGN KEY ("pixel_id") REFERENCES "public"."pixels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_space_id_spaces_id_fk" FOREIGN KEY ("space_id") REFERENCES "public"."spaces"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pixels" ADD CONSTRAINT "pixels_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spaces" ADD CONSTRAINT "spaces_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_user_id_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "clicks_link_id_created_at_idx" ON "clicks" USING btree ("link_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "domains_name_key" ON "domains" USING btree ("name");--> statement-breakpoint
CREATE INDEX "domains_user_id_id_idx" ON "domains" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "domains_name_trgm_idx" ON "domains" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "import_errors_job_id_line_idx" ON "import_errors" USING btree ("job_id","line");--> statement-breakpoint
CREATE UNIQUE INDEX "import_jobs_user_id_idempotency_key_key" ON "import_jobs" USING btree ("user_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "import_jobs_user_id_id_idx" ON "import_jobs" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "link_pixels_pixel_id_idx" ON "link_pixels" USING btree ("pixel_id");--> statement-breakpoint
CREATE UNIQUE INDEX "links_domain_id_alias_key" ON "links" USING btree ("domain_id","alias");--> statement-breakpoint
CREATE UNIQUE INDEX "links_import_key_key" ON "links" USING btree ("import_key");--> statement-breakpoint
CREATE INDEX "links_user_id_id_idx" ON "links" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "links_user_id_clicks_id_idx" ON "links" USING btree ("user_id","clicks","id");--> statement-breakpoint
CREATE INDEX "links_user_id_alias_id_idx" ON "links" USING btree ("user_id","alias","id");--> statement-breakpoint
CREATE INDEX "links_user_id_url_id_idx" ON "links" USING btree ("user_id","url","id");--> statement-breakpoint
CREATE INDEX "links_user_id_title_id_idx" ON "links" USING btree ("user_id","title","id");--> statement-breakpoint
CREATE INDEX "links_domain_id_idx" ON "links" USING btree ("domain_id");--> statement-breakpoint
CREATE INDEX "links_space_id_idx" ON "links" USING btree ("space_id");--> statement-breakpoint
CREATE INDEX "links_alias_trgm_idx" ON "links" USING gin ("alias" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "links_url_trgm_idx" ON "links" USING gin ("url" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "links_title_trgm_idx" ON "links" USING gin ("title" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "pixels_user_id_id_idx" ON "pixels" USING btree ("user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "spaces_user_id_name_key" ON "spaces" USING btree ("user_id","name");--> statement-breakpoint
CREATE INDEX "spaces_user_id_id_idx" ON "spaces" USING btree ("user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree ("email");
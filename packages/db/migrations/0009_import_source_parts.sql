CREATE TABLE "import_source_parts" (
	"job_id" integer NOT NULL,
	"part" integer NOT NULL,
	"content" text NOT NULL,
	CONSTRAINT "import_source_parts_job_id_part_pk" PRIMARY KEY("job_id","part")
);
--> statement-breakpoint
ALTER TABLE "import_jobs" ADD COLUMN "has_source" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "import_source_parts" ADD CONSTRAINT "import_source_parts_job_id_import_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."import_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- A stored file moves to its parts (one part: it was one text); the next migration drops the column.
INSERT INTO "import_source_parts" ("job_id", "part", "content") SELECT "id", 0, "source" FROM "import_jobs" WHERE "source" IS NOT NULL AND "source" <> '';
--> statement-breakpoint
UPDATE "import_jobs" SET "has_source" = true WHERE "source" IS NOT NULL;

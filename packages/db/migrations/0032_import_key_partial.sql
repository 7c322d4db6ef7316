-- Only imported links carry an import key: every link made through the API wrote a NULL entry into this
-- unique index, which nothing reads. Partial now (one index entry fewer a create, issue #26); the import's
-- `on conflict do nothing` and its `import_key = any(…)` lookup use the partial index alike.
DROP INDEX "links_import_key_key";--> statement-breakpoint
CREATE UNIQUE INDEX "links_import_key_key" ON "links" USING btree ("import_key") WHERE "links"."import_key" is not null;
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { importJobs, links } from "@shortener/db";
import { createDomain, IMPORT_FORMATS, type ImportFormat } from "@shortener/core";
import { createTestUser, EXPORT_FILE_OUTCOME, exportFile, unique } from "@shortener/core/testing";
import { useCliFixture } from "./helpers.ts";

/** `pnpm importer import <file> --format <service>` (CONTRACT §23) on each service's export file. */
const { dir, withDb, cli } = useCliFixture("importer-formats-");
const EXPORT_NAMES = IMPORT_FORMATS.filter((f): f is Exclude<ImportFormat, "csv"> => f !== "csv");

async function owner() {
  return withDb(async (database) => {
    const user = await createTestUser(database.db);
    const own = await createDomain({ ctx: user.ctx, input: { name: `${unique("own")}.example` } });
    const fallback = await createDomain({ ctx: user.ctx, input: { name: `${unique("default")}.example` } });
    return { workspaceId: user.workspaceId, email: user.email, own, fallback };
  });
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe("pnpm importer import --format", () => {
  it.each(EXPORT_NAMES)("imports a %s export with --format, and writes its row errors beside it", { timeout: 120_000 }, async (format) => {
    const o = await owner();
    const path = file(`${unique(format)}.csv`, exportFile(format, o.own.name));
    const run = await cli("import", path, "--user", o.email, "--domain", o.fallback.name, "--format", format);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/Imported .* as job \d+: 8 rows in [\d.]+ s \([\d,]+ rows\/s\) — 3 created, 0 skipped, 5 failed\./);
    expect(existsSync(`${path}.errors.csv`)).toBe(true);
    const stored = await withDb((db) =>
      db.db
        .select({ alias: links.alias, url: links.url, domainId: links.domainId })
        .from(links)
        .where(and(eq(links.workspaceId, o.workspaceId), like(links.alias, "keep%"))),
    );
    expect(Object.fromEntries(stored.map((l) => [l.alias, l.url]))).toEqual(EXPORT_FILE_OUTCOME.created);
    expect(stored.find((l) => l.alias === "keep1")?.domainId).toBe(EXPORT_FILE_OUTCOME.withoutDomain.includes(format) ? o.fallback.id : o.own.id);
    const jobs = await withDb((db) => db.db.select({ format: importJobs.format }).from(importJobs).where(eq(importJobs.workspaceId, o.workspaceId)));
    expect(jobs).toEqual([{ format }]);
  });

  it("refuses a file whose header is not its --format's: exit 1, the missing columns named, no job created", { timeout: 120_000 }, async () => {
    const o = await owner();
    const path = file(`${unique("wrong")}.csv`, exportFile("bitly", o.own.name));
    const run = await cli("import", path, "--user", o.email, "--domain", o.fallback.name, "--format", "shlink");
    expect(run.code).toBe(1);
    expect(run.err).toBe("The file is not a Shlink export (format=shlink): its header has no shortCode or shortUrl column. Nothing was imported.\n");
    const jobs = await withDb((db) => db.db.select({ id: importJobs.id }).from(importJobs).where(eq(importJobs.workspaceId, o.workspaceId)));
    expect(jobs).toEqual([]);
    // A dry run says the same (a Bitly long_url is a Shlink longUrl: only the short code is missing).
    const dry = await cli("import", path, "--user", o.email, "--format", "shlink", "--dry-run");
    expect(dry.code).toBe(1);
    expect(dry.err).toContain("its header has no shortCode or shortUrl column.");
  });

  it("refuses an unknown --format as a usage error (exit 2) listing the formats", async () => {
    const o = await owner();
    const path = file(`${unique("any")}.csv`, "url\nhttps://x.example/1\n");
    const run = await cli("import", path, "--user", o.email, "--format", "excel");
    expect(run.code).toBe(2);
    expect(run.err).toBe(`--format must be one of ${IMPORT_FORMATS.join(", ")}.\n`);
  });
});

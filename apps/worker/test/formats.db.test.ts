import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { links, type Database } from "@shortener/db";
import { createDomain, createImport, getImport, IMPORT_FORMATS, type ImportFormat } from "@shortener/core";
import { createTestUser, EXPORT_FILE_OUTCOME, exportFile, exportFileErrors, openTestDb, sortErrors, unique } from "@shortener/core/testing";
import { processStoredJob } from "../src/process-job.ts";

/** CONTRACT §23: each service's own export file, stored with its format as the API stores it, run by the worker's own job lifecycle. */
let database: Database;

beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

const sys = () => ({ db: database.db, now: () => new Date() });
const EXPORT_NAMES = IMPORT_FORMATS.filter((f): f is Exclude<ImportFormat, "csv"> => f !== "csv");

/** A user with two domains: `own` (named by the files' short URLs) and `fallback`, the job's default domain. */
async function owner() {
  const user = await createTestUser(database.db);
  const own = await createDomain({ ctx: user.ctx, input: { name: `${unique("own")}.example` } });
  const fallback = await createDomain({ ctx: user.ctx, input: { name: `${unique("default")}.example` } });
  return { user, own, fallback };
}

async function linksOf(workspaceId: number, jobId: number) {
  return database.db
    .select({ alias: links.alias, url: links.url, title: links.title, domainId: links.domainId, disabled: links.disabled, endsAt: links.endsAt, expirationClicks: links.expirationClicks })
    .from(links)
    .where(and(eq(links.workspaceId, workspaceId), like(links.importKey, `${jobId}:%`)));
}

describe("export files of other services (format=)", () => {
  it.each(EXPORT_NAMES)("imports a %s export: aliases kept, a short URL on one of ours stays there, the rest on the default domain, hostile rows refused", async (format) => {
    const { user, own, fallback } = await owner();
    const source = exportFile(format, own.name);
    const { job } = await createImport({ ctx: user.ctx, input: { source, format, domain_id: fallback.id, total_rows: 8 } });
    expect(job.format).toBe(format);
    const result = await processStoredJob(sys(), job.id, { batchSize: 3 });
    expect(result.outcome).toBe("completed");

    const done = await getImport({ ctx: user.ctx, id: job.id });
    expect(done).toMatchObject({ status: "completed", format, processedRows: 8, createdRows: 3, skippedRows: 0, failedRows: 5 });
    expect(sortErrors(done.errors.map((e) => ({ line: e.line, field: e.field })))).toEqual(exportFileErrors(format));

    const written = await linksOf(user.workspaceId, job.id);
    expect(Object.fromEntries(written.map((l) => [l.alias, l.url]))).toEqual(EXPORT_FILE_OUTCOME.created);
    const byAlias = new Map(written.map((l) => [l.alias, l]));
    expect(byAlias.get("keep1")?.domainId).toBe(EXPORT_FILE_OUTCOME.withoutDomain.includes(format) ? fallback.id : own.id);
    for (const alias of ["keep2", "keep6"]) expect(byAlias.get(alias)?.domainId).toBe(fallback.id);
    if (format !== "dub") {
      // Titles arrive exactly, formula and quotes and line break included (formulas are neutralised where files are written, not here).
      expect(byAlias.get("keep1")?.title).toBe("First");
      expect(byAlias.get("keep2")?.title).toBe('=HYPERLINK("http://evil.example","x"), with comma');
      expect(byAlias.get("keep6")?.title).toBe('two\nlines "quoted"');
    }
  });

  it("carries expirations and refuses to open a link that had a password (Kutt, phpShort, Short.io)", async () => {
    for (const format of ["kutt", "phpshort", "shortio"] as const) {
      const { user, own, fallback } = await owner();
      const { job } = await createImport({ ctx: user.ctx, input: { source: exportFile(format, own.name), format, domain_id: fallback.id, total_rows: 8 } });
      await processStoredJob(sys(), job.id, {});
      const keep6 = (await linksOf(user.workspaceId, job.id)).find((l) => l.alias === "keep6");
      const expected = {
        kutt: { disabled: 1, endsAt: "2099-01-02T03:04:00.000Z", expirationClicks: 0 },
        phpshort: { disabled: 1, endsAt: "2099-12-31T23:59:00.000Z", expirationClicks: 50 },
        shortio: { disabled: 0, endsAt: "2099-05-06T07:08:00.000Z", expirationClicks: 100 },
      }[format];
      expect({ disabled: Number(keep6?.disabled), endsAt: keep6?.endsAt?.toISOString(), expirationClicks: keep6?.expirationClicks }, format).toEqual(expected);
    }
  });

  it("resumes a stopped non-CSV job from its checkpoint, reading the stored file with the stored format", async () => {
    const { user, own, fallback } = await owner();
    const { job } = await createImport({ ctx: user.ctx, input: { source: exportFile("shlink", own.name), format: "shlink", domain_id: fallback.id, total_rows: 8 } });
    // The first run stops after its first batch (a worker told to stop, or killed after the commit).
    const first = await processStoredJob(sys(), job.id, { batchSize: 2, shouldStop: () => true });
    expect(first.outcome).toBe("stopped");
    const halfway = await getImport({ ctx: user.ctx, id: job.id });
    expect(halfway).toMatchObject({ status: "running", processedRows: 2, createdRows: 2 });
    // The resumed run is a fresh call: nothing but the job row tells it how to read the file.
    const second = await processStoredJob(sys(), job.id, { batchSize: 2 });
    expect(second.outcome).toBe("completed");
    const done = await getImport({ ctx: user.ctx, id: job.id });
    expect(done).toMatchObject({ status: "completed", processedRows: 8, createdRows: 3, failedRows: 5 });
    const written = await linksOf(user.workspaceId, job.id);
    expect(written.map((l) => l.alias).sort()).toEqual(Object.keys(EXPORT_FILE_OUTCOME.created).sort());
  });

  it("fails a stored job whose file is another service's export, naming the columns its format lacks; nothing is written", async () => {
    const { user, own, fallback } = await owner();
    const { job } = await createImport({ ctx: user.ctx, input: { source: exportFile("bitly", own.name), format: "dub", domain_id: fallback.id, total_rows: 8 } });
    const result = await processStoredJob(sys(), job.id, {});
    expect(result).toEqual({ outcome: "failed", reason: "The file is not a Dub export (format=dub): its header has no url column." });
    expect(await linksOf(user.workspaceId, job.id)).toEqual([]);
  });

  it("without a default domain, a short URL on another service's domain is a row error naming it; one on ours is kept", async () => {
    const { user, own } = await owner();
    const { job } = await createImport({ ctx: user.ctx, input: { source: exportFile("rebrandly", own.name), format: "rebrandly", total_rows: 8 } });
    await processStoredJob(sys(), job.id, {});
    const done = await getImport({ ctx: user.ctx, id: job.id });
    expect(done.createdRows).toBe(1);
    expect(done.errors).toContainEqual({ line: 3, field: "domain", message: "The short URL's domain rebrand.ly is not one of your domains, and the import has no default domain." });
    expect((await linksOf(user.workspaceId, job.id)).map((l) => [l.alias, l.domainId])).toEqual([["keep1", own.id]]);
  });
});

import { eq, like, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importErrors, importJobs, importSourceParts, linkPixels, links, type Database } from "@shortener/db";
import {
  checkImport,
  claimImport,
  completeImport,
  failStaleUploads,
  findImportsToResume,
  streamImportSource,
  createDomain,
  createImport,
  createPixel,
  createSpace,
  getImport,
  listImports,
  NotFoundError,
  runImport,
  streamImportErrors,
  ValidationError,
  verifyPassword,
  type ImportRow,
  type RowError,
} from "@shortener/core";
import { createTestUser, openTestDb, unique, type TestUser } from "@shortener/core/testing";
import { cutSourceText } from "../src/imports/create-import.ts";

let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

const sys = () => ({ db: database.db, now: () => new Date() });

/** Rows as the CSV reader gives them: the header is line 1, so data starts on line 2. */
function rowsOf(records: Array<Record<string, string>>, firstLine = 2): ImportRow[] {
  return records.map((fields, i) => ({ line: firstLine + i, fields }));
}

async function* stream(rows: ImportRow[]) {
  yield* rows;
}

async function owner() {
  const user = await createTestUser(database.db);
  const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique("d")}.example` } });
  return { user, domain };
}

/** Creates a job and runs all of it; returns the job as `getImport` sees it. */
async function importAll(user: TestUser, rows: ImportRow[], input: { domain_id?: number } = {}, batchSize = 3) {
  const { job } = await createImport({ ctx: user.ctx, input: { ...input, total_rows: rows.length } });
  const claimed = await claimImport(sys(), job.id);
  if (!claimed) throw new Error("not claimed");
  const run = await runImport({ ctx: sys(), job: claimed, rows: stream(rows), options: { batchSize } });
  expect(run.isFinished).toBe(true);
  await completeImport(sys(), job.id);
  return getImport({ ctx: user.ctx, id: job.id });
}

describe("runImport", () => {
  it("creates a link per good row with the same rules as the API, and reports bad rows by line", async () => {
    const { user, domain } = await owner();
    const space = await createSpace({ ctx: user.ctx, input: { name: unique("s") } });
    const pixel = await createPixel({ ctx: user.ctx, input: { name: "p", type: "facebook", value: "123" } });
    const other = await owner();
    const rows = rowsOf([
      { url: "https://a.example/1", alias: "first", title: "One", password: "s3cret", space_id: String(space.id), pixel_ids: `${pixel.id}` },
      { url: "javascript:alert(1)", alias: "bad" },
      { url: "https://a.example/2", domain_id: String(other.domain.id) },
      { url: "https://a.example/3", domain: domain.name.toUpperCase() },
      { url: "https://a.example/4", privacy: "2" },
      { url: `https://${domain.name}/loop` },
      { url: "https://a.example/5", expiration_date: "2000-01-01" },
      { url: "https://a.example/6", disabled: "1", expiration_clicks: "5", expiration_date: "2999-01-01", expiration_time: "10:30" },
    ]);
    const job = await importAll(user, rows, { domain_id: domain.id });
    expect(job).toMatchObject({ status: "completed", totalRows: 8, processedRows: 8, createdRows: 3, skippedRows: 0, failedRows: 5 });
    expect(job.errors).toEqual([
      { line: 3, field: "url", message: "The url must start with http:// or https://." },
      { line: 4, field: "domain_id", message: "The selected domain id is invalid." },
      { line: 6, field: "privacy_password", message: "The privacy password field is required when privacy is 2." },
      { line: 7, field: "url", message: "The URL must not point to a domain served by this service." },
      { line: 8, field: "expiration_date", message: "The expiration must be in the future." },
    ]);

    const created = await database.db
      .select()
      .from(links)
      .where(like(links.importKey, `${job.id}:%`))
      .orderBy(links.id);
    expect(created.map((l) => l.importKey)).toEqual([`${job.id}:2`, `${job.id}:5`, `${job.id}:9`]);
    const first = created.find((l) => l.alias === "first");
    expect(first).toMatchObject({ url: "https://a.example/1", title: "One", spaceId: space.id, domainId: domain.id });
    expect(first?.passwordHash).not.toBe("s3cret");
    expect(await verifyPassword("s3cret", first?.passwordHash ?? "")).toBe(true);
    expect(
      await database.db
        .select()
        .from(linkPixels)
        .where(eq(linkPixels.linkId, first?.id ?? 0)),
    ).toEqual([{ linkId: first?.id, pixelId: pixel.id }]);
    const byName = created.find((l) => l.url === "https://a.example/3");
    expect(byName?.domainId).toBe(domain.id);
    expect(byName?.alias).toMatch(/^[A-Za-z0-9]{6,}$/);
    const last = created.find((l) => l.url === "https://a.example/6");
    expect(last).toMatchObject({ disabled: true, expirationClicks: 5 });
    expect(last?.endsAt?.toISOString()).toBe("2999-01-01T10:30:00.000Z");
  });

  it("takes a ;-separated tags column under the API's rules; a bad tag is a row error on tags", async () => {
    const { user, domain } = await owner();
    const rows = rowsOf([
      { url: "https://a.example/t1", alias: "tagged", tags: "sale; Fall 26;SALE" },
      { url: "https://a.example/t2", alias: "pixeltag", tags: "x" },
      { url: "https://a.example/t3", alias: "badtag", tags: "y".repeat(33) },
      { url: "https://a.example/t4", alias: "untagged", tags: "" },
    ]);
    const job = await importAll(user, rows, { domain_id: domain.id }, 2);
    expect(job.createdRows).toBe(3);
    expect(job.errors).toEqual([{ line: 4, field: "tags", message: "The tags must each be at most 32 characters." }]);
    const stored = await database.db.select({ alias: links.alias, tags: links.tags, tagKeys: links.tagKeys }).from(links).where(eq(links.workspaceId, user.workspaceId));
    const byAlias = new Map(stored.map((l) => [l.alias, l]));
    expect(byAlias.get("tagged")).toEqual({ alias: "tagged", tags: ["sale", "Fall 26"], tagKeys: ["sale", "fall 26"] });
    expect(byAlias.get("pixeltag")?.tags).toEqual(["x"]);
    expect(byAlias.get("untagged")?.tags).toEqual([]);
  });

  it("takes the og_title, og_description and og_image columns under the API's rules; a bad one is a row error naming it", async () => {
    const { user, domain } = await owner();
    const rows = rowsOf([
      { url: "https://a.example/o1", alias: "card", og_title: "Fall sale", og_description: "Two lines:\nshoes & bags", og_image: "https://img.example/c.png" },
      { url: "https://a.example/o2", alias: "nocard", og_title: "", og_description: "", og_image: "" },
      { url: "https://a.example/o3", alias: "badimage", og_image: "javascript:alert(1)" },
      { url: "https://a.example/o4", alias: "badtitle", og_title: "a\u0007b" },
      { url: "https://a.example/o5", alias: "longdesc", og_description: "d".repeat(1001) },
    ]);
    const job = await importAll(user, rows, { domain_id: domain.id }, 2);
    expect(job.createdRows).toBe(2);
    expect(job.errors.map((e) => [e.line, e.field])).toEqual([
      [4, "og_image"],
      [5, "og_title"],
      [6, "og_description"],
    ]);
    const stored = await database.db
      .select({ alias: links.alias, ogTitle: links.ogTitle, ogDescription: links.ogDescription, ogImage: links.ogImage })
      .from(links)
      .where(eq(links.workspaceId, user.workspaceId));
    const byAlias = new Map(stored.map((l) => [l.alias, l]));
    expect(byAlias.get("card")).toEqual({ alias: "card", ogTitle: "Fall sale", ogDescription: "Two lines:\nshoes & bags", ogImage: "https://img.example/c.png" });
    expect(byAlias.get("nocard")).toEqual({ alias: "nocard", ogTitle: null, ogDescription: null, ogImage: null });
  });

  it("needs a domain for each row: its own, or the job's default", async () => {
    const { user, domain } = await owner();
    const job = await importAll(user, rowsOf([{ url: "https://b.example/1" }, { url: "https://b.example/2", domain: domain.name }, { url: "https://b.example/3", domain: "nope.example" }]));
    expect(job.errors).toEqual([
      { line: 2, field: "domain", message: "The row names no domain (domain or domain_id) and the import has no default domain." },
      { line: 4, field: "domain", message: "The selected domain is invalid." },
    ]);
    expect(job.createdRows).toBe(1);
  });

  it("makes a duplicate alias within the file an error on its second line, within a batch and across batches", async () => {
    const { user, domain } = await owner();
    const rows = rowsOf([
      { url: "https://c.example/1", alias: "dup" },
      { url: "https://c.example/2", alias: "dup" },
      { url: "https://c.example/3", alias: "other" },
      { url: "https://c.example/4", alias: "dup" },
      { url: "https://c.example/1", alias: "other" },
    ]);
    const job = await importAll(user, rows, { domain_id: domain.id }, 3);
    expect(job.errors).toEqual([
      { line: 3, field: "alias", message: "The alias is already used on line 2 of this file." },
      { line: 5, field: "alias", message: "The alias is already used on line 2 of this file." },
      { line: 6, field: "alias", message: "The alias is already used on line 4 of this file." },
    ]);
    expect(job).toMatchObject({ createdRows: 2, failedRows: 3, skippedRows: 0 });
  });

  it("in a new job: same alias and url is skipped, same alias with another url is an error, no alias is a new link", async () => {
    const { user, domain } = await owner();
    const rows = rowsOf([{ url: "https://d.example/1", alias: "keep" }, { url: "https://d.example/2", alias: "change" }, { url: "https://d.example/3" }]);
    const first = await importAll(user, rows, { domain_id: domain.id });
    expect(first).toMatchObject({ createdRows: 3, skippedRows: 0, failedRows: 0 });
    const again = await importAll(user, rowsOf([{ url: "https://d.example/1", alias: "keep" }, { url: "https://d.example/other", alias: "change" }, { url: "https://d.example/3" }]), {
      domain_id: domain.id,
    });
    expect(again).toMatchObject({ createdRows: 1, skippedRows: 1, failedRows: 1 });
    expect(again.errors).toEqual([{ line: 3, field: "alias", message: "The alias has already been taken." }]);
    const all = await database.db.select().from(links).where(eq(links.domainId, domain.id));
    expect(all.filter((l) => l.url === "https://d.example/3")).toHaveLength(2);
    expect(all.find((l) => l.alias === "change")?.url).toBe("https://d.example/2");
  });

  it("resumes from the checkpoint: rows of committed batches are never read again, none is written twice", async () => {
    const { user, domain } = await owner();
    const rows = rowsOf(Array.from({ length: 10 }, (_, i) => ({ url: `https://e.example/${i}`, ...(i % 2 ? { alias: `e${i}` } : {}) })));
    const { job } = await createImport({ ctx: user.ctx, input: { domain_id: domain.id, total_rows: 10 } });
    const claimed = await claimImport(sys(), job.id);
    if (!claimed) throw new Error("not claimed");
    let batches = 0;
    const first = await runImport({ ctx: sys(), job: claimed, rows: stream(rows), options: { batchSize: 4, shouldStop: () => ++batches >= 2 } });
    expect(first.isFinished).toBe(false);
    const [stored] = await database.db.select().from(importJobs).where(eq(importJobs.id, job.id));
    expect(stored).toMatchObject({ status: "running", checkpointLine: 9, processedRows: 8 });

    const resumed = await claimImport(sys(), job.id);
    if (!resumed) throw new Error("not claimed");
    expect(resumed.checkpointLine).toBe(9);
    const seen: number[] = [];
    const second = await runImport({ ctx: sys(), job: resumed, rows: stream(rows), options: { batchSize: 4, onBatch: (o) => seen.push(o.processed) } });
    expect(second).toMatchObject({ isFinished: true, totals: { processed: 10, created: 10, skipped: 0, failed: 0, line: 11 } });
    expect(seen).toEqual([2]);
    const written = await database.db
      .select({ key: links.importKey })
      .from(links)
      .where(like(links.importKey, `${job.id}:%`));
    expect(written.map((w) => w.key).sort()).toEqual(rows.map((r) => `${job.id}:${r.line}`).sort());
  });

  it("reports bytes that were not UTF-8 (decoded as U+FFFD) and NUL as row errors", async () => {
    const { user, domain } = await owner();
    const job = await importAll(
      user,
      rowsOf([
        { url: "https://f.example/1", title: "caf\ufffd" },
        { url: "https://f.example/2", title: "a\u0000b" },
        { url: "https://f.example/3", title: "café" },
      ]),
      {
        domain_id: domain.id,
      },
    );
    expect(job.errors).toEqual([
      { line: 2, field: "title", message: "The value is not valid UTF-8 text." },
      { line: 3, field: "title", message: "The value is not valid UTF-8 text." },
    ]);
    expect(job.createdRows).toBe(1);
  });
});

describe("import jobs", () => {
  it("returns the same job for the same idempotency key, per user", async () => {
    const { user, domain } = await owner();
    const key = unique("key");
    const a = await createImport({ ctx: user.ctx, input: { source: "url\n", domain_id: domain.id, idempotency_key: key } });
    const b = await createImport({ ctx: user.ctx, input: { source: "url\nhttps://x.example\n", idempotency_key: key } });
    expect(a.isNew).toBe(true);
    expect(b).toEqual({ job: a.job, isNew: false });
    const other = await owner();
    const c = await createImport({ ctx: other.user.ctx, input: { source: "url\n", idempotency_key: key } });
    expect(c.isNew).toBe(true);
    expect((await listImports({ ctx: user.ctx, input: {} })).total).toBe(1);
  });

  it("stores a large file in parts, ready for workers only once whole, and reads it back a part at a time", async () => {
    const { user, domain } = await owner();
    const text = `url,title\n${Array.from({ length: 50 }, (_, i) => `https://p.example/${i},é😀ü${i}`).join("\n")}\n`;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const parts = (async function* () {
      yield text.slice(0, 100);
      await held;
      yield text.slice(100);
    })();
    const creating = createImport({ ctx: user.ctx, input: { domain_id: domain.id, total_rows: 50 }, sourceParts: parts });
    // While the upload is unfinished, the job exists but no worker may take it.
    let pending: number | undefined;
    for (let i = 0; i < 100 && pending === undefined; i++) {
      [pending] = (await database.db.select({ id: importJobs.id }).from(importJobs).where(eq(importJobs.workspaceId, user.id))).map((j) => j.id);
      if (pending === undefined) await new Promise((r) => setTimeout(r, 10));
    }
    expect(pending).toBeDefined();
    expect(await claimImport(sys(), pending ?? 0)).toBeNull();
    expect(await findImportsToResume(sys(), { queuedBefore: new Date(Date.now() + 60_000) })).not.toContain(pending);
    release();
    const { job } = await creating;
    const read: string[] = [];
    for await (const part of streamImportSource(sys(), job.id)) read.push(part);
    expect(read).toEqual([text.slice(0, 100), text.slice(100)]);
    expect((await claimImport(sys(), job.id))?.hasSource).toBe(true);

    // Finished: the file's parts are dropped with it.
    await completeImport(sys(), job.id);
    expect(await database.db.select().from(importSourceParts).where(eq(importSourceParts.jobId, job.id))).toEqual([]);
    expect(await findImportsToResume(sys(), { queuedBefore: new Date(Date.now() + 60_000) })).not.toContain(job.id);
  });

  it("cuts a long text into even parts, never between the halves of a surrogate pair", () => {
    expect(cutSourceText("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
    expect(cutSourceText("abcdefghi", 8)).toEqual(["abcde", "fghi"]);
    expect(cutSourceText("a😀b😀", 2)).toEqual(["a\ud83d\ude00", "b\ud83d\ude00"]);
    expect(cutSourceText("", 4)).toEqual([]);
    const emoji = "😀".repeat(1000);
    const pieces = cutSourceText(emoji, 333);
    expect(pieces.join("")).toBe(emoji);
    // No piece starts with the low half of a pair or ends with a high half.
    for (const piece of pieces) expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(piece)).toBe(false);
  });

  it("deletes the job when its upload fails part way, and fails uploads abandoned by a dead server", async () => {
    const { user } = await owner();
    const parts = (async function* () {
      yield "url\nhttps://x.example\n";
      throw new Error("client went away");
    })();
    await expect(createImport({ ctx: user.ctx, input: { total_rows: 1 }, sourceParts: parts })).rejects.toThrow("client went away");
    expect(await database.db.select().from(importJobs).where(eq(importJobs.workspaceId, user.id))).toEqual([]);

    const [stale] = await database.db
      .insert(importJobs)
      .values({ workspaceId: user.workspaceId, hasSource: true, checkpointLine: 0, createdAt: new Date(Date.now() - 7 * 3600_000) })
      .returning();
    await database.db.insert(importSourceParts).values({ jobId: stale?.id ?? 0, part: 0, content: "url\n" });
    expect(await failStaleUploads(sys(), new Date(Date.now() - 6 * 3600_000))).toBeGreaterThanOrEqual(1);
    const [after] = await database.db
      .select()
      .from(importJobs)
      .where(eq(importJobs.id, stale?.id ?? 0));
    expect(after).toMatchObject({ status: "failed", hasSource: false, failureMessage: "The upload was interrupted before the whole file was received." });
    expect(
      await database.db
        .select()
        .from(importSourceParts)
        .where(eq(importSourceParts.jobId, stale?.id ?? 0)),
    ).toEqual([]);
  });

  it("refuses a default domain that is not the caller's", async () => {
    const { user } = await owner();
    const other = await owner();
    await expect(createImport({ ctx: user.ctx, input: { source: "url\n", domain_id: other.domain.id } })).rejects.toBeInstanceOf(ValidationError);
  });

  it("hides another user's job and its errors", async () => {
    const { user, domain } = await owner();
    const job = await importAll(user, rowsOf([{ url: "ftp://x" }]), { domain_id: domain.id });
    const other = await owner();
    await expect(getImport({ ctx: other.user.ctx, id: job.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(streamImportErrors({ ctx: other.user.ctx, id: job.id })).rejects.toBeInstanceOf(NotFoundError);
    const pages: RowError[][] = [];
    for await (const page of await streamImportErrors({ ctx: user.ctx, id: job.id })) pages.push(page);
    expect(pages).toEqual([[{ line: 2, field: "url", message: "The url must start with http:// or https://." }]]);
  });

  it("streams every row error in file order, a page at a time", async () => {
    const { user, domain } = await owner();
    const job = await importAll(user, rowsOf(Array.from({ length: 7 }, (_, i) => ({ url: `bad${i}` }))), { domain_id: domain.id });
    const lines: number[] = [];
    for await (const page of await streamImportErrors({ ctx: user.ctx, id: job.id, pageSize: 3 })) lines.push(...page.map((e) => e.line));
    expect(lines).toEqual([2, 3, 4, 5, 6, 7, 8]);
    const [count] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(importErrors)
      .where(eq(importErrors.jobId, job.id));
    expect(count?.n).toBe(7);
  });
});

describe("checkImport (dry run)", () => {
  it("counts what a run would do without writing anything", async () => {
    const { user, domain } = await owner();
    await importAll(user, rowsOf([{ url: "https://g.example/1", alias: "taken" }]), { domain_id: domain.id });
    const before = await database.db.select({ n: sql<number>`count(*)::int` }).from(links);
    const errors: RowError[] = [];
    const { totals } = await checkImport({
      ctx: sys(),
      workspaceId: user.workspaceId,
      defaultDomainId: domain.id,
      rows: stream(
        rowsOf([
          { url: "https://g.example/1", alias: "taken" },
          { url: "https://g.example/2", alias: "taken" },
          { url: "https://g.example/3", alias: "x" },
          { url: "https://g.example/3", alias: "x" },
          { url: "nope" },
        ]),
      ),
      options: { batchSize: 2, onBatch: (o) => errors.push(...o.errors) },
    });
    expect(totals).toEqual({ processed: 5, created: 1, skipped: 1, failed: 3, line: 6 });
    expect(errors.map((e) => [e.line, e.field])).toEqual([
      [3, "alias"],
      [5, "alias"],
      [6, "url"],
    ]);
    expect(await database.db.select({ n: sql<number>`count(*)::int` }).from(links)).toEqual(before);
  });
});

import { eq, like, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importJobs, importSourceParts, links, type Database } from "@shortener/db";
import { createDomain, createImport, getImport } from "@shortener/core";
import { createTestUser, openTestDb, unique } from "@shortener/core/testing";
import { createImporter, type Importer } from "../src/index.ts";
import { quietLog } from "./helpers.ts";

let database: Database;
let importer: Importer;

beforeAll(async () => {
  database = await openTestDb();
  importer = createImporter({ database, now: () => new Date(), log: quietLog, config: { batchSize: 4, pollIntervalSeconds: 0.5, sweepIntervalMs: 200, queuedGraceMs: 60_000 } });
  await importer.start();
});
afterAll(async () => {
  await importer?.close();
  await database?.close();
});

async function owner() {
  const user = await createTestUser(database.db);
  const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique("d")}.example` } });
  return { user, domain };
}

async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function finished(user: Awaited<ReturnType<typeof owner>>["user"], id: number) {
  return waitFor(async () => {
    const job = await getImport({ ctx: user.ctx, id });
    return job.status === "completed" || job.status === "failed" ? job : undefined;
  });
}

/** A hostile file, as the API stores it: BOM, CRLF, quotes and line breaks in fields, bad schemes, a formula, undecodable bytes, duplicate aliases. */
const HOSTILE = [
  "\ufeffurl,alias,title,pixel_ids",
  'https://ok.example/1,one,"Quoted, with comma",',
  "javascript:alert(1),js,,",
  '"https://ok.example/2",two,"Two',
  'lines and ""quotes""",',
  '"data:text/html;base64,PHNjcmlwdD4=",data,,',
  'https://ok.example/3,three,"=HYPERLINK(""http://evil.example"",""x"")",',
  "https://ok.example/4,four,caf\ufffd,",
  "https://ok.example/5,one,dup,",
  "https://ok.example/6,,no alias,",
  "",
  "https://ok.example/7,seven,,999999",
].join("\r\n");

describe("the import worker", () => {
  it("runs a queued job from pg-boss, importing the good rows and reporting each bad one by its line", async () => {
    const { user, domain } = await owner();
    const { job } = await createImport({ ctx: user.ctx, input: { source: HOSTILE, domain_id: domain.id, total_rows: 9 } });
    await importer.enqueue(job.id);
    const done = await finished(user, job.id);
    expect(done).toMatchObject({ status: "completed", totalRows: 9, processedRows: 9, createdRows: 4, skippedRows: 0, failedRows: 5, failureReason: null });
    expect(done.errors).toEqual([
      { line: 3, field: "url", message: "The url must start with http:// or https://." },
      { line: 6, field: "url", message: "The url must start with http:// or https://." },
      { line: 8, field: "title", message: "The value is not valid UTF-8 text." },
      { line: 9, field: "alias", message: "The alias is already used on line 2 of this file." },
      { line: 12, field: "pixel_ids", message: "The selected pixel ids are invalid." },
    ]);
    const rows = await database.db.select().from(links).where(eq(links.domainId, domain.id));
    expect(Object.fromEntries(rows.map((l) => [l.alias.length === 6 && !["three"].includes(l.alias) ? "random" : l.alias, l.title]))).toEqual({
      one: "Quoted, with comma",
      two: 'Two\r\nlines and "quotes"',
      three: '=HYPERLINK("http://evil.example","x")',
      random: "no alias",
    });
    const [stored] = await database.db.select({ hasSource: importJobs.hasSource, checkpoint: importJobs.checkpointLine }).from(importJobs).where(eq(importJobs.id, job.id));
    expect(stored).toEqual({ hasSource: false, checkpoint: 12 });
    expect(await database.db.select().from(importSourceParts).where(eq(importSourceParts.jobId, job.id))).toEqual([]);
  });

  it("fails a job whose file has no url column; a quote never closed is a row error, the rest imported", async () => {
    const { user, domain } = await owner();
    const noUrl = await createImport({ ctx: user.ctx, input: { source: "link,alias\nhttps://x.example,x\n", domain_id: domain.id } });
    const broken = await createImport({ ctx: user.ctx, input: { source: 'url,title\nhttps://x.example/1,ok\nhttps://x.example/2,"open\nhttps://x.example/3,ok\n', domain_id: domain.id } });
    await importer.enqueue(noUrl.job.id);
    await importer.enqueue(broken.job.id);
    expect(await finished(user, noUrl.job.id)).toMatchObject({ status: "failed", failureReason: "The file has no url column.", processedRows: 0 });
    expect(await finished(user, broken.job.id)).toMatchObject({
      status: "completed",
      createdRows: 2,
      failedRows: 1,
      errors: [{ line: 3, field: null, message: "The row has a quote that is never closed." }],
    });
  });

  it("resumes a job left running by a worker that died, from its checkpoint, without writing a row twice", async () => {
    const { user, domain } = await owner();
    const source = ["url,alias", ...Array.from({ length: 10 }, (_, i) => `https://r.example/${i},r${i}`)].join("\n");
    const { job } = await createImport({ ctx: user.ctx, input: { source, domain_id: domain.id, total_rows: 10 } });
    // What a dead worker leaves: the first three rows committed with the checkpoint at line 4, status running.
    await database.db.execute(sql`insert into links (workspace_id, domain_id, alias, url, import_key)
      select ${user.workspaceId}::int, ${domain.id}::int, 'r' || i, 'https://r.example/' || i, ${`${job.id}:`} || (i + 2) from generate_series(0, 2) as i`);
    await database.db.update(importJobs).set({ status: "running", checkpointLine: 4, processedRows: 3, createdRows: 3, startedAt: new Date() }).where(eq(importJobs.id, job.id));
    const done = await finished(user, job.id);
    expect(done).toMatchObject({ status: "completed", processedRows: 10, createdRows: 10, failedRows: 0, skippedRows: 0 });
    const written = await database.db
      .select({ alias: links.alias })
      .from(links)
      .where(like(links.importKey, `${job.id}:%`));
    expect(written.map((w) => w.alias).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `r${i}`).sort());
  });
});

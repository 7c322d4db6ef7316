import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importSourceParts, type Database } from "@shortener/db";
import { createDomain, createImport, getImport } from "@shortener/core";
import { createTestUser, openTestDb, unique } from "@shortener/core/testing";
import { createImporter, type Importer } from "../src/index.ts";
import { compareJob, hostileFiles, jobEndOf } from "../src/testing/hostile-files.ts";

/**
 * The worker's side of the hostile files: each is stored as the API stores an upload (decoded as UTF-8,
 * NUL kept as U+FFFD) — even the ones the API refuses with 422, since a job's file must end whatever it
 * holds — then queued; each job must end `completed` or `failed` with its stored file gone.
 */
let database: Database;
let importer: Importer;
const silent = { info() {}, warn() {}, error() {} };

beforeAll(async () => {
  database = await openTestDb();
  importer = createImporter({ database, now: () => new Date(), log: silent, config: { pollIntervalSeconds: 0.5, sweepIntervalMs: 200, queuedGraceMs: 60_000 } });
  await importer.start();
});
afterAll(async () => {
  await importer?.close();
  await database?.close();
});

async function ended(ctx: Parameters<typeof getImport>[0]["ctx"], id: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = await getImport({ ctx, id });
    if (job.status === "completed" || job.status === "failed") return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the worker ends a job whatever its file holds", () => {
  it.each(hostileFiles().map((f) => [f.name, f] as const))("%s", async (_name, file) => {
    const user = await createTestUser(database.db);
    const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique("h")}.example` } });
    const text = new TextDecoder().decode(file.bytes);
    const { job } = await createImport({
      ctx: user.ctx,
      input: { domain_id: domain.id },
      sourceParts: (async function* () {
        yield text;
      })(),
    });
    await importer.enqueue(job.id);
    const end = await ended(user.ctx, job.id);
    expect(compareJob(file, jobEndOf(end))).toEqual([]);
    const parts = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(importSourceParts)
      .where(eq(importSourceParts.jobId, job.id));
    expect(parts).toEqual([{ n: 0 }]);
  });
});

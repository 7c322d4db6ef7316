import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importJobs, importSourceParts } from "@shortener/db";
import { compareJob, hostileFiles } from "@shortener/worker/testing";
import { bootstrapDomainId, endedImport, startTestServer, type TestServer } from "./helpers.ts";

/**
 * The hostile files of issue 12 through the API job path, in one process as `pnpm start` runs it:
 * `POST /api/v1/imports` with the file as a text/csv body, the queue, the worker, `GET` the job. Each
 * upload is refused with a 422 on `file` (no job) or ends `completed`/`failed` with the expected row
 * errors; no stored source is left. The table is shared with the CLI's and the worker's tests.
 */
const ADMIN_KEY = `shk_${"H".repeat(40)}`;
let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY });
  base = server.base;
});
afterAll(async () => {
  await server?.close();
});

const auth = { authorization: `Bearer ${ADMIN_KEY}` };

const domainId = () => bootstrapDomainId(server);
const ended = (id: number) => endedImport(base, ADMIN_KEY, id, 90_000);

describe("uploads of hostile files end, whatever they hold", () => {
  it.each(hostileFiles().map((f) => [f.name, f] as const))("%s", { timeout: 120_000 }, async (_name, file) => {
    const jobsBefore = await server.database.db.select({ n: sql<number>`count(*)::int` }).from(importJobs);
    const res = await fetch(`${base}/api/v1/imports?domain_id=${domainId()}`, {
      method: "POST",
      headers: { ...auth, "content-type": "text/csv" },
      body: file.bytes,
    });
    const body = (await res.json()) as Record<string, any>;
    expect(res.status).toBe(file.upload.status);
    if (file.upload.status === 422) {
      expect(body).toEqual({ message: { file: [file.upload.file] }, code: "validation_failed", status: 422 });
      expect(await server.database.db.select({ n: sql<number>`count(*)::int` }).from(importJobs)).toEqual(jobsBefore);
      return;
    }
    const id = body.data.id as number;
    const job = await ended(id);
    expect(
      compareJob(file, {
        status: job.status,
        failureReason: job.failure_reason ?? null,
        processed: job.processed_rows,
        created: job.created_rows,
        skipped: job.skipped_rows,
        failed: job.failed_rows,
        errors: job.errors,
      }),
    ).toEqual([]);
    expect(job.total_rows).toBe(job.processed_rows);
    const parts = await server.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(importSourceParts)
      .where(eq(importSourceParts.jobId, id));
    expect(parts).toEqual([{ n: 0 }]);
  });

  it("leaves no stored source at all once every job has ended", async () => {
    expect(await server.database.db.select({ n: sql<number>`count(*)::int` }).from(importSourceParts)).toEqual([{ n: 0 }]);
    const unfinished = await server.database.db
      .select({ id: importJobs.id })
      .from(importJobs)
      .where(sql`${importJobs.status} in ('queued', 'running')`);
    expect(unfinished).toEqual([]);
  });
});

import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importJobs, links } from "@shortener/db";
import { bootstrapDomainId, endedImport, startTestServer, type TestServer } from "./helpers.ts";

/** The whole path in one process: POST a file, the queue, the worker, GET the job — on both drivers. */
const ADMIN_KEY = `shk_${"I".repeat(40)}`;
let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY });
  base = server.base;
});
afterAll(async () => {
  await server?.close();
});

const domainId = () => bootstrapDomainId(server);

async function post(body: string, key?: string) {
  const res = await fetch(`${base}/api/v1/imports?domain_id=${domainId()}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "text/csv", ...(key ? { "idempotency-key": key } : {}) },
    body,
  });
  return { status: res.status, body: (await res.json()) as { data: { id: number; status: string } } };
}

const completed = (id: number) => endedImport(base, ADMIN_KEY, id, 60_000);

describe("importing through the API", () => {
  it("runs an uploaded file to completion; the same Idempotency-Key again changes nothing", async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => `https://api-import.example/${i},${i % 2 ? `a${i}` : ""},T${i}`);
    const csv = `url,alias,title\n${rows.join("\n")}\n`;
    const first = await post(csv, "upload-1");
    expect(first.status).toBe(202);
    const done = await completed(first.body.data.id);
    expect(done).toMatchObject({ status: "completed", total_rows: 1200, processed_rows: 1200, created_rows: 1200, failed_rows: 0, errors: [] });

    const again = await post(csv, "upload-1");
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: first.body.data.id, status: "completed", created_rows: 1200 });
    await new Promise((r) => setTimeout(r, 300));
    const db = server.database.db;
    expect(await db.select({ n: sql<number>`count(*)::int` }).from(importJobs)).toEqual([{ n: 1 }]);
    expect(
      await db
        .select({ n: sql<number>`count(*)::int` })
        .from(links)
        .where(eq(links.domainId, domainId())),
    ).toEqual([{ n: 1200 }]);

    // Without the key, the same file is a new job: aliased rows are skipped, rows without an alias are new links.
    const other = await post(csv);
    expect(other.status).toBe(202);
    expect(await completed(other.body.data.id)).toMatchObject({ status: "completed", created_rows: 600, skipped_rows: 600 });
  });
});

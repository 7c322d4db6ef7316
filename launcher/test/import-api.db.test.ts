import pino from "pino";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importJobs, links } from "@shortener/db";
import { freePort, openServerStorage } from "@shortener/db/testing";
import { parseEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";

/** The whole path in one process: POST a file, the queue, the worker, GET the job — on both drivers. */
const ADMIN_KEY = `shk_${"I".repeat(40)}`;
let server: RunningServer;
let base: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const storage = await openServerStorage();
  const settings = storage.settings;
  cleanup = () => storage.close();
  const port = await freePort();
  server = await startServer(parseEnv({ ...settings, PORT: String(port), ADMIN_API_KEY: ADMIN_KEY }), pino({ level: "silent" }));
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await server?.close();
  await cleanup?.();
});

function domainId(): number {
  if (!server.boot.created || server.boot.domainId === null) throw new Error("no bootstrap domain");
  return server.boot.domainId;
}

async function post(body: string, key?: string) {
  const res = await fetch(`${base}/api/v1/imports?domain_id=${domainId()}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "text/csv", ...(key ? { "idempotency-key": key } : {}) },
    body,
  });
  return { status: res.status, body: (await res.json()) as { data: { id: number; status: string } } };
}

async function job(id: number) {
  const res = await fetch(`${base}/api/v1/imports/${id}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  return ((await res.json()) as { data: Record<string, unknown> }).data;
}

async function completed(id: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const current = await job(id);
    if (current.status === "completed" || current.status === "failed") return current;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${String(current.status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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

import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { eq, like, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importErrors, importJobs, links, type Database } from "@shortener/db";
import { createDomain, createImport } from "@shortener/core";
import { createTestUser, unique } from "@shortener/core/testing";
import { freePort, openSharedTestDb, type SharedTestDb } from "@shortener/db/testing";
import { createImporter } from "@shortener/worker";
import { spawnService } from "./helpers.ts";

/**
 * CONTRACT §12: a worker killed mid-job resumes it; no row is created twice and none is lost. A real
 * worker process (the launcher with SERVICES=importer) is killed with SIGKILL in the middle of a job,
 * then started again. On PGlite the data folder must survive the kill too (the test opens it between runs).
 */
const ROWS = 40_000;
const BATCH = 500;

let shared: SharedTestDb;

beforeAll(async () => {
  shared = await openSharedTestDb();
});
afterAll(async () => {
  await shared?.close();
});

const withDb = <T>(fn: (database: Database) => Promise<T>) => shared.withDb(fn);

/**
 * Row i: every third has no alias (a random one is made), every 1000th has a bad URL (a row error). The
 * chosen aliases have a "-", which a random alias (base 62) never has: a random alias drawn for an earlier
 * line can never take a later line's chosen one (a 6-character `k12345` could be drawn, ~0.5 % a run).
 */
function csv(): string {
  const lines = ["url,alias,title"];
  for (let i = 0; i < ROWS; i++) {
    const url = i % 1000 === 7 ? `javascript:alert(${i})` : `https://resume.example/${i}`;
    lines.push(`${url},${i % 3 === 0 ? "" : `k-${i}`},Row ${i}`);
  }
  return `${lines.join("\n")}\n`;
}
const BAD_ROWS = Array.from({ length: ROWS }, (_, i) => i).filter((i) => i % 1000 === 7).length;

type Worker = {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  waitFor(test: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
};

function startWorker(port: number): Worker {
  const { child, exited } = spawnService({
    ...shared.settings,
    PORT: String(port),
    SERVICES: "importer", // the worker role by its former name, still accepted (issue #27)
    IMPORT_BATCH_SIZE: String(BATCH),
    LOG_LEVEL: "debug",
    ADMIN_API_KEY: `shk_${"R".repeat(40)}`,
  });
  const lines: Array<Record<string, unknown>> = [];
  const listeners = new Set<() => void>();
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr += String(chunk)));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
    try {
      lines.push(JSON.parse(text) as Record<string, unknown>);
      for (const listener of listeners) listener();
    } catch {
      // the welcome text is not JSON
    }
  });
  return {
    child,
    lines,
    exited,
    waitFor(test, timeoutMs = 90_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(test);
          if (found) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`worker did not log what was expected; stderr: ${stderr.slice(-2000)}; last lines: ${JSON.stringify(lines.slice(-5))}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then(() => setTimeout(check, 10));
        check();
      });
    },
  };
}

describe("a worker killed mid-job", () => {
  it("resumes the job after a restart: every row exactly once", { timeout: 240_000 }, async () => {
    const { jobId, workspaceId, domainId } = await withDb(async (database) => {
      const user = await createTestUser(database.db);
      const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique("r")}.example` } });
      const { job } = await createImport({ ctx: user.ctx, input: { source: csv(), domain_id: domain.id, total_rows: ROWS } });
      // Queue it the way the API does; this process only sends, it runs nothing.
      const queue = createImporter({ database, now: () => new Date(), log: { info() {}, warn() {}, error() {} } });
      await queue.enqueue(job.id);
      await queue.close();
      return { jobId: job.id, workspaceId: user.workspaceId, domainId: domain.id };
    });

    const first = startWorker(await freePort());
    await first.waitFor((l) => l.msg === "import batch committed" && l.jobId === jobId && Number(l.processed) >= 2 * BATCH);
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe(null);

    const midway = await withDb(async (database) => {
      const [job] = await database.db.select().from(importJobs).where(eq(importJobs.id, jobId));
      const [written] = await database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(links)
        .where(like(links.importKey, `${jobId}:%`));
      return { job, written: written?.n };
    });
    expect(midway.job?.status).toBe("running");
    expect(midway.job?.processedRows).toBeGreaterThanOrEqual(2 * BATCH);
    expect(midway.job?.processedRows).toBeLessThan(ROWS);
    expect(midway.job?.checkpointLine).toBe((midway.job?.processedRows ?? 0) + 1);
    // The links and the counters were committed together: nothing written past the checkpoint.
    expect(midway.written).toBe(midway.job?.createdRows);

    const second = startWorker(await freePort());
    const done = await second.waitFor((l) => l.msg === "import completed" && l.jobId === jobId, 180_000);
    expect(done).toMatchObject({ outcome: "completed" });
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);

    await withDb(async (database) => {
      // The refused lines first, each with its reason: exactly the bad URLs (file line = row + 2).
      const refused = await database.db.select({ line: importErrors.line, field: importErrors.field, message: importErrors.message }).from(importErrors).where(eq(importErrors.jobId, jobId));
      expect(refused.map((e) => `${e.line} ${e.field}`).sort()).toEqual(
        Array.from({ length: ROWS }, (_, i) => i)
          .filter((i) => i % 1000 === 7)
          .map((i) => `${i + 2} url`)
          .sort(),
      );
      const [job] = await database.db.select().from(importJobs).where(eq(importJobs.id, jobId));
      expect(job).toMatchObject({ status: "completed", processedRows: ROWS, createdRows: ROWS - BAD_ROWS, failedRows: BAD_ROWS, skippedRows: 0, hasSource: false });
      const rows = await database.db.select({ key: links.importKey, alias: links.alias, url: links.url }).from(links).where(eq(links.workspaceId, workspaceId));
      expect(rows).toHaveLength(ROWS - BAD_ROWS);
      const keys = new Set(rows.map((r) => r.key));
      expect(keys.size).toBe(rows.length);
      const expected = Array.from({ length: ROWS }, (_, i) => i).filter((i) => i % 1000 !== 7);
      expect([...keys].sort()).toEqual(expected.map((i) => `${jobId}:${i + 2}`).sort());
      // Each aliased row kept its alias, once; each row without one got a random alias of its own.
      const byUrl = new Map(rows.map((r) => [r.url, r.alias]));
      expect(byUrl.size).toBe(rows.length);
      for (const i of expected) {
        const alias = byUrl.get(`https://resume.example/${i}`);
        if (i % 3 === 0) expect(alias).toMatch(/^[A-Za-z0-9]{6,}$/);
        else expect(alias).toBe(`k-${i}`);
      }
      const [domainRows] = await database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(links)
        .where(eq(links.domainId, domainId));
      expect(domainRows?.n).toBe(ROWS - BAD_ROWS);
    });
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDb, queryRows, sql } from "@shortener/db";
import { needsInitdb, prepareEmbeddedInChild, EMBEDDED_SETTINGS } from "../src/embedded.ts";
import { settleMemory } from "../src/settle-memory.ts";

describe("first start of the embedded database", () => {
  it("creates and migrates the database in a child process; this process then opens it ready", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "shortener-embedded-")), "data");
    expect(needsInitdb(dir)).toBe(true);
    await prepareEmbeddedInChild(dir);
    expect(needsInitdb(dir)).toBe(false);
    const database = await openDb({ dataDir: dir, pgliteSettings: EMBEDDED_SETTINGS });
    try {
      expect(await queryRows(database.db, sql`select count(*)::int as n from links`)).toEqual([{ n: 0 }]);
      const [applied] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
      expect(applied?.n).toBeGreaterThan(10);
    } finally {
      await database.close();
    }
  }, 120_000);

  it("fails with a message naming DATA_DIR when the folder cannot hold a database", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "shortener-embedded-")), "not-a-folder");
    writeFileSync(file, "x");
    await expect(prepareEmbeddedInChild(file)).rejects.toThrow(`creating the embedded database in DATA_DIR ${file} failed`);
  }, 60_000);
});

describe("settling memory after the start", () => {
  it("collects the start's garbage and leaves no gc global behind", () => {
    let garbage: number[][] | undefined = Array.from({ length: 200 }, () => Array.from({ length: 20_000 }, (_, i) => i + 0.5));
    const before = process.memoryUsage().heapUsed;
    expect(garbage.length).toBe(200);
    garbage = undefined;
    settleMemory();
    const after = process.memoryUsage().heapUsed;
    // 200 × 20,000 doubles is ~32 MB of heap.
    expect(before - after).toBeGreaterThan(20 * 1024 * 1024);
    expect("gc" in globalThis).toBe(false);
  });
});

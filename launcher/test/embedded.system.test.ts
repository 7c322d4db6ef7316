import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDb, queryRows, sql } from "@shortener/db";
import { copyEmbeddedTemplate, makeEmbeddedTemplate, needsInitdb, prepareEmbeddedInChild, EMBEDDED_SETTINGS } from "../src/embedded.ts";
import { settleMemory } from "../src/settle-memory.ts";

/** Opens a data folder and reads what a first start needs to find there: every migration, no data. */
async function readDatabase(dataDir: string): Promise<{ links: number; migrations: number; settings: number }> {
  const database = await openDb({ dataDir, pgliteSettings: EMBEDDED_SETTINGS });
  try {
    const [row] = await queryRows<{ links: number; migrations: number; settings: number }>(
      database.db,
      sql`select (select count(*)::int from links) as links, (select count(*)::int from drizzle.__drizzle_migrations) as migrations, (select count(*)::int from settings) as settings`,
    );
    if (!row) throw new Error("no row");
    return row;
  } finally {
    await database.close();
  }
}

/** The distinct permission bits of the files and of the folders under `root` (the lock file aside). */
function modes(root: string): { files: string[]; dirs: string[] } {
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.name === "shortener.pid" || entry.name === "shortener-migrations.sha256") continue;
    const mode = (statSync(join(entry.parentPath, entry.name)).mode & 0o777).toString(8);
    (entry.isDirectory() ? dirs : files).add(mode);
  }
  return { files: [...files].sort(), dirs: [...dirs].sort() };
}

const MIGRATIONS = JSON.parse(readFileSync(new URL("../../packages/db/migrations/meta/_journal.json", import.meta.url), "utf8")) as { entries: unknown[] };

describe("first start of the embedded database", () => {
  it("a template made in a child process (as the build makes it) fills an empty DATA_DIR with a migrated database and no secret", async () => {
    const root = mkdtempSync(join(tmpdir(), "shortener-embedded-"));
    const template = join(root, "template");
    await makeEmbeddedTemplate(template);
    expect(needsInitdb(template)).toBe(false);

    // The data folder already holds the start's lock file, which the copy keeps.
    const dir = join(root, "data");
    mkdirSync(dir);
    writeFileSync(join(dir, "shortener.pid"), "12345");
    expect(needsInitdb(dir)).toBe(true);
    expect(copyEmbeddedTemplate(dir, template)).toBe(true);
    expect(needsInitdb(dir)).toBe(false);
    expect(readFileSync(join(dir, "shortener.pid"), "utf8")).toBe("12345");
    // The template is readable by any user (a checkout built by root, served by its own user); the copy is private.
    expect(modes(template).files).toEqual(["644"]);
    expect(modes(dir)).toEqual({ files: ["600"], dirs: ["700"] });
    expect(existsSync(join(dir, "shortener-migrations.sha256"))).toBe(false);
    // Every migration applied; no setting (the secret is made by each service's own start, never shipped).
    expect(await readDatabase(dir)).toEqual({ links: 0, migrations: MIGRATIONS.entries.length, settings: 0 });

    // A template made from other migrations is not used: the start creates the database itself.
    writeFileSync(join(template, "shortener-migrations.sha256"), "0".repeat(64));
    const other = join(root, "other");
    expect(copyEmbeddedTemplate(other, template)).toBe(false);
    expect(needsInitdb(other)).toBe(true);
    expect(copyEmbeddedTemplate(other, join(root, "missing"))).toBe(false);
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

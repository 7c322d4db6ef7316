import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupArchive, formatBackupCounts, openDb, snapshotEmbedded, writeTar } from "@shortener/db";
import { EMBEDDED_SETTINGS, prepareEmbedded } from "../src/embedded.ts";
import { runRestoreCli } from "./backup-helpers.ts";

/**
 * `pnpm restore FILE` (CONTRACT §22) as operators run it: the real entry point in a child process. Every
 * bad input — a missing, empty, random, truncated or damaged file, an archive that is not a backup, a
 * backup without a database, a DATA_DIR that is not empty or is a file — gives one line on stderr, a
 * non-zero exit and leaves DATA_DIR exactly as it was. A good backup restores into a missing or an
 * empty folder and prints its counts.
 */
const SLOW = 120_000;
let dir: string;
let backup: string;
let counts: string;

const runRestore = runRestoreCli;

/** Every path under `root` with its content's hash: "missing" when there is no `root`. */
function stateOf(root: string): string {
  if (!existsSync(root)) return "missing";
  if (!statSync(root).isDirectory()) return `file ${createHash("sha256").update(readFileSync(root)).digest("hex")}`;
  const lines: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(root, relative), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(relative, entry.name);
      if (entry.isDirectory()) {
        lines.push(`${path}/`);
        walk(path);
      } else
        lines.push(
          `${path} ${createHash("sha256")
            .update(readFileSync(join(root, path)))
            .digest("hex")}`,
        );
    }
  };
  walk("");
  return lines.join("\n") || "empty folder";
}

/** A gzip tar made with the backup's own writer: `entries` in order. */
async function archiveOf(path: string, entries: Array<{ name: string; data?: Buffer }>, isGzip = true): Promise<void> {
  const tar = Buffer.concat((await Readable.from(writeTar(entries.map((entry) => ({ name: entry.name, type: "file" as const, data: entry.data ?? Buffer.alloc(0) })))).toArray()) as Buffer[]);
  writeFileSync(path, isGzip ? gzipSync(tar) : tar);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "restore-cli-"));
  const source = join(dir, "source");
  await prepareEmbedded(source);
  const database = await openDb({ dataDir: source, pgliteSettings: EMBEDDED_SETTINGS });
  try {
    const pg = database.pglite as NonNullable<typeof database.pglite>;
    await pg.exec(`insert into users (email, name, role) values ('admin@example.com', 'Admin', 'admin');
      insert into workspaces (name, personal_user_id) values ('Admin', 1);
      insert into domains (workspace_id, name, verified_at) values (1, 'example.com', now());
      insert into links (workspace_id, domain_id, alias, url, clicks) select 1, 1, 'l' || i, 'https://example.org/' || i, i from generate_series(1, 50) i;`);
    const snapshot = await snapshotEmbedded(database, source);
    counts = formatBackupCounts(snapshot.manifest.counts);
    backup = join(dir, "backup.tar.gz");
    await pipeline(backupArchive(snapshot), createWriteStream(backup));
  } finally {
    await database.close();
  }
  const whole = readFileSync(backup);
  writeFileSync(join(dir, "truncated.tar.gz"), whole.subarray(0, Math.floor(whole.length / 2)));
  const damaged = Buffer.from(whole);
  for (let i = Math.floor(damaged.length / 3); i < Math.floor(damaged.length / 3) + 64; i++) damaged[i] = (damaged[i] ?? 0) ^ 0xff;
  writeFileSync(join(dir, "damaged.tar.gz"), damaged);
  writeFileSync(join(dir, "empty.tar.gz"), "");
  writeFileSync(join(dir, "random.bin"), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)));
  await archiveOf(join(dir, "foreign.tar.gz"), [{ name: "notes.txt", data: Buffer.from("not a backup\n") }]);
  await archiveOf(join(dir, "plain.tar"), [{ name: "shortener-backup.json", data: Buffer.from("{}") }], false);
  const manifest = JSON.stringify({ format: "shortener-embedded-backup", formatVersion: 1, createdAt: new Date().toISOString(), postgres: "18", migrations: 1, counts: {} });
  await archiveOf(join(dir, "no-database.tar.gz"), [
    { name: "shortener-backup.json", data: Buffer.from(manifest) },
    { name: "data/notes.txt", data: Buffer.from("hello") },
  ]);
  await archiveOf(join(dir, "escape.tar.gz"), [
    { name: "shortener-backup.json", data: Buffer.from(manifest) },
    { name: "data/../../escaped.txt", data: Buffer.from("x") },
  ]);
}, SLOW);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("pnpm restore: bad input changes nothing", () => {
  /** [case, file, how DATA_DIR is before, the line expected on stderr]. */
  const cases: Array<[string, string, "missing" | "empty" | "full" | "file", RegExp]> = [
    ["a missing file", "nowhere.tar.gz", "missing", /nowhere\.tar\.gz: no such file\.$/],
    ["an empty file", "empty.tar.gz", "empty", /empty\.tar\.gz is empty: not a backup of this service\.$/],
    ["random bytes", "random.bin", "missing", /random\.bin is not a backup of this service \(not gzip data, or damaged\)\.$/],
    ["a truncated backup", "truncated.tar.gz", "empty", /truncated\.tar\.gz is (truncated|damaged)/],
    ["a damaged backup", "damaged.tar.gz", "missing", /damaged\.tar\.gz is (not a backup of this service|damaged|truncated)/],
    ["a gzip tar that is not a backup", "foreign.tar.gz", "empty", /foreign\.tar\.gz is an archive but not a backup of this service \(it does not start with shortener-backup\.json\)\.$/],
    ["an uncompressed tar", "plain.tar", "missing", /plain\.tar is not a backup of this service \(not gzip data, or damaged\)\.$/],
    ["a backup without a database", "no-database.tar.gz", "empty", /no-database\.tar\.gz holds no database \(no data\/PG_VERSION\): not a backup of this service\.$/],
    ["a path that leaves the folder", "escape.tar.gz", "missing", /escape\.tar\.gz is damaged: the archive holds a path that is not allowed: data\/\.\.\/\.\.\/escaped\.txt\.$/],
    ["a good backup into a folder that is not empty", "backup.tar.gz", "full", /DATA_DIR .* is not empty: restore into an empty or new folder/],
    ["a good backup into a path that is a file", "backup.tar.gz", "file", /DATA_DIR .* is not a folder\.$/],
  ];
  it.each(cases)(
    "%s (%s, DATA_DIR %s)",
    async (_name, file, before, message) => {
      const target = mkdtempSync(join(dir, "target-"));
      const dataDir = join(target, "data");
      if (before === "empty") mkdirSync(dataDir);
      if (before === "full") {
        mkdirSync(join(dataDir, "base"), { recursive: true });
        writeFileSync(join(dataDir, "PG_VERSION"), "18\n");
        writeFileSync(join(dataDir, "base", "1"), "old data");
      }
      if (before === "file") writeFileSync(dataDir, "a file");
      const state = stateOf(dataDir);
      const result = await runRestore([join(dir, file), "--data-dir", dataDir]);
      console.log(`${_name}: exit ${result.code}: ${result.stderr.trim()}`);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(message);
      expect(stateOf(dataDir)).toBe(state);
      expect(existsSync(join(dir, "escaped.txt")) || existsSync(join(target, "escaped.txt"))).toBe(false);
      expect(readdirSync(target).filter((entry) => entry !== "data")).toEqual([]);
    },
    SLOW,
  );

  it.each([
    [[], 2, /^usage: pnpm restore FILE/],
    [["a.tar.gz", "b.tar.gz"], 2, /^usage: pnpm restore FILE/],
    [["a.tar.gz", "--bogus"], 2, /^unknown option --bogus\. usage:/],
  ] as Array<[string[], number, RegExp]>)("arguments %j: exit %i with the usage", async (args, code, message) => {
    const result = await runRestore(args);
    expect([result.code, result.stderr.trim().split("\n").length]).toEqual([code, 1]);
    expect(result.stderr).toMatch(message);
  });

  it("refuses DATABASE_URL without --data-dir: that data is PostgreSQL's, for pg_restore", async () => {
    const result = await runRestore([backup], { DATABASE_URL: "postgres://postgres@127.0.0.1:5432/none" });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe("DATABASE_URL is set: this service keeps its data in PostgreSQL, restore it with pg_restore (docs/backups.md), or pass --data-dir.");
  });
});

describe("pnpm restore: a good backup", () => {
  it.each([["missing"], ["empty"]] as Array<["missing" | "empty"]>)(
    "restores into a %s DATA_DIR (from the environment) and prints its counts",
    async (before) => {
      const dataDir = join(mkdtempSync(join(dir, "good-")), "data");
      if (before === "empty") mkdirSync(dataDir);
      const result = await runRestore([backup], { DATA_DIR: dataDir });
      expect([result.code, result.stderr]).toEqual([0, ""]);
      const line = result.stdout.trim();
      console.log(line);
      expect(line.startsWith(`restored ${backup} (taken `)).toBe(true);
      expect(line.endsWith(`) into DATA_DIR ${dataDir}: ${counts}. Start the service on it with pnpm start.`)).toBe(true);
      // The database and nothing else: no lock file, no folder of the restore left behind.
      expect(readdirSync(dataDir).filter((entry) => entry === "shortener.pid" || entry.startsWith(".restoring"))).toEqual([]);
      expect(readFileSync(join(dataDir, "PG_VERSION"), "utf8").trim()).toBe("18");
    },
    SLOW,
  );
});

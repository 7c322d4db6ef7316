import { createWriteStream, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { afterAll, describe, expect, it } from "vitest";
import { backupArchive, migrate, openDb, restoreEmbedded, snapshotEmbedded, type Database } from "../src/index.ts";

/**
 * The embedded backup's consistency (docs/adr/0037-embedded-backups.md): writes that come while the copy
 * is taken wait for it, so the copy holds exactly the rows its counts say — a prefix of the writes, in
 * order — and writes go on after it. The same on either test project: this file opens its own PGlite in a
 * data folder.
 */
const dir = mkdtempSync(join(tmpdir(), "backup-snapshot-"));
const opened: Database[] = [];
afterAll(async () => {
  for (const database of opened) await database.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

describe("snapshotEmbedded", () => {
  it("holds exactly the writes committed before it, while one write after another goes on", async () => {
    const dataDir = join(dir, "data");
    const database = await openDb({ dataDir });
    opened.push(database);
    await migrate(database);
    const pg = database.pglite as NonNullable<typeof database.pglite>;
    await pg.exec(
      `insert into users (email, name, role) values ('a@example.com', 'A', 'admin'); insert into workspaces (name, personal_user_id) values ('A', 1); insert into domains (workspace_id, name, verified_at) values (1, 'example.com', now());`,
    );

    let isStopping = false;
    let written = 0;
    const writer = (async () => {
      for (let n = 1; !isStopping; n++) {
        await pg.query("insert into links (workspace_id, domain_id, alias, url, clicks) values (1, 1, $1, $2, $3)", [`w${n}`, `https://example.com/${n}`, n]);
        written = n;
        // PGlite answers in microtasks only: without a turn of the event loop, no timer would ever run.
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    while (written < 20) await new Promise((resolve) => setTimeout(resolve, 5));
    const snapshot = await snapshotEmbedded(database, dataDir, dir);
    const writtenAtEnd = written;
    while (written < writtenAtEnd + 20) await new Promise((resolve) => setTimeout(resolve, 5));
    const file = join(dir, "backup.tar.gz");
    await pipeline(backupArchive(snapshot), createWriteStream(file));
    isStopping = true;
    await writer;
    // The snapshot's own copy is gone once the archive is written.
    expect(readdirSync(dir).filter((name) => name.startsWith("shortener-backup-"))).toEqual([]);

    const k = snapshot.manifest.counts.links;
    console.log(`links written before the snapshot returned: ${writtenAtEnd}, in the snapshot: ${k}, in the end: ${written}`);
    expect(k).toBeGreaterThanOrEqual(20);
    expect(k).toBeLessThanOrEqual(writtenAtEnd);
    expect(snapshot.manifest.counts.clicks).toBe((k * (k + 1)) / 2);

    const restored = await restoreEmbedded(file, join(dir, "restored"));
    expect(restored.counts).toEqual(snapshot.manifest.counts);
    const copy = await openDb({ dataDir: join(dir, "restored") });
    opened.push(copy);
    const { rows } = await (copy.pglite as NonNullable<typeof copy.pglite>).query<{ alias: string }>("select alias from links order by id");
    // Exactly the first k writes, in order: nothing missing, nothing from after.
    expect(rows.map((row) => row.alias)).toEqual(Array.from({ length: k }, (_, i) => `w${i + 1}`));
  }, 120_000);
});

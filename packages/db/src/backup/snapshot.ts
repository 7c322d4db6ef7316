// A consistent copy of the running embedded database (CONTRACT §22, docs/adr/0037-embedded-backups.md):
// taken while nothing else runs on the one PGlite connection, then archived at leisure.
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream";
import { createGzip } from "node:zlib";
import type { Database } from "../client.ts";
import { listTree, writeTar, type TarSource } from "./tar.ts";

/** The first entry of every backup: what it is, and what it holds. */
export const MANIFEST_NAME = "shortener-backup.json";
/** The folder of the archive that holds the data folder's files. */
export const DATA_PREFIX = "data";
export const BACKUP_FORMAT = "shortener-embedded-backup";

/** What a backup holds, counted inside the same exclusive moment as the copy (the restore checks them). */
export type BackupCounts = { users: number; apiKeys: number; domains: number; links: number; clicks: number };

/** `users=2, api_keys=3, domains=4, links=5, clicks=6`: the backup's answer header and the restore say the same. */
export function formatBackupCounts(counts: BackupCounts): string {
  return `users=${counts.users}, api_keys=${counts.apiKeys}, domains=${counts.domains}, links=${counts.links}, clicks=${counts.clicks}`;
}

export type BackupManifest = {
  format: typeof BACKUP_FORMAT;
  formatVersion: 1;
  createdAt: string;
  /** The data folder's PostgreSQL major version (its PG_VERSION). */
  postgres: string;
  /** How many of the committed migrations the database had run. */
  migrations: number;
  counts: BackupCounts;
};

/** Files of a data folder a copy leaves out: the locks of the process that runs it. */
const SKIPPED = new Set(["shortener.pid", "postmaster.pid", "postmaster.opts"]);

/** A WAL segment's file name (timeline and position, 24 hex digits). */
const WAL_SEGMENT = /^[0-9A-F]{24}$/;

/** A copy of the data folder: what it holds, where it is, and how long other statements waited for it. */
export type Snapshot = { manifest: BackupManifest; dir: string; pausedMs: number; remove(): Promise<void> };

const COUNTS_SQL = `select
  (select count(*) from users)::int as users,
  (select count(*) from api_keys)::int as api_keys,
  (select count(*) from domains)::int as domains,
  (select count(*) from links)::int as links,
  (select coalesce(sum(clicks), 0) from links)::bigint as clicks,
  (select count(*) from drizzle.__drizzle_migrations)::int as migrations,
  pg_walfile_name(redo_lsn) as redo_wal,
  pg_walfile_name(pg_current_wal_insert_lsn()) as current_wal
from pg_control_checkpoint()`;

type CountsRow = { users: number; api_keys: number; domains: number; links: number; clicks: string | number; migrations: number; redo_wal: string; current_wal: string };

/**
 * Copies the embedded database in `dataDir` to a new folder under `tmp`. PGlite runs one statement at a
 * time, and a transaction holds its connection until it ends: inside one, after a CHECKPOINT (every
 * change on the data files), nothing else writes while the files are copied. Statements that come
 * meanwhile wait and run after the copy. Of the WAL only the segments from the checkpoint's start to
 * the current one are copied (the others are recycled ones, not needed to start). The counts are read
 * in the same transaction: they describe exactly what the copy holds.
 */
export async function snapshotEmbedded(database: Database, dataDir: string, tmp = tmpdir()): Promise<Snapshot> {
  const pg = database.pglite;
  if (!pg) throw new Error("a snapshot is of the embedded database only: back PostgreSQL up with pg_dump");
  const dir = await mkdtemp(join(tmp, "shortener-backup-"));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    let pausedMs = 0;
    const row = await pg.transaction(async (tx) => {
      const paused = performance.now();
      await tx.exec("checkpoint");
      const [counts] = (await tx.query<CountsRow>(COUNTS_SQL)).rows;
      if (!counts) throw new Error("the database did not answer its counts");
      const isNeededWal = (name: string) => name >= counts.redo_wal && name <= counts.current_wal;
      copyTree(dataDir, dir, "", (relative, name) => SKIPPED.has(relative) || (relative.startsWith("pg_wal/") && WAL_SEGMENT.test(name) && !isNeededWal(name)));
      pausedMs = performance.now() - paused;
      return counts;
    });
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      formatVersion: 1,
      createdAt: new Date().toISOString(),
      postgres: (await readFile(join(dir, "PG_VERSION"), "utf8")).trim(),
      migrations: row.migrations,
      counts: { users: row.users, apiKeys: row.api_keys, domains: row.domains, links: row.links, clicks: Number(row.clicks) },
    };
    return { manifest, dir, pausedMs, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * Copies the folder synchronously: the event loop waits too, but the copy is over sooner than one that
 * yields between files to a busy process (measured under load: 2.3 s of pause copied file by file
 * asynchronously, against a fraction of a second at once; docs/adr/0037-embedded-backups.md).
 */
function copyTree(from: string, to: string, relative: string, skip: (relative: string, name: string) => boolean): void {
  for (const entry of readdirSync(join(from, relative), { withFileTypes: true })) {
    const path = relative ? `${relative}/${entry.name}` : entry.name;
    if (skip(path, entry.name)) continue;
    if (entry.isDirectory()) {
      mkdirSync(join(to, path));
      copyTree(from, to, path, skip);
    } else if (entry.isFile()) {
      copyFileSync(join(from, path), join(to, path));
    }
  }
}

/**
 * The backup file of a snapshot, as a gzip stream: the manifest, then the data folder under `data/`.
 * The snapshot's folder is removed when the stream ends, fails or is abandoned.
 */
export function backupArchive(snapshot: Snapshot): Readable {
  let isRemoved = false;
  const remove = async () => {
    if (isRemoved) return;
    isRemoved = true;
    await snapshot.remove();
  };
  // The copy is removed as soon as it has been read, before the gzip stream ends.
  const sources = async function* (): AsyncGenerator<Buffer> {
    try {
      const entries: TarSource[] = [
        { name: MANIFEST_NAME, type: "file", data: Buffer.from(`${JSON.stringify(snapshot.manifest, null, 2)}\n`) },
        { name: DATA_PREFIX, type: "dir" },
        ...(await listTree(snapshot.dir, DATA_PREFIX, () => false)),
      ];
      yield* writeTar(entries);
    } finally {
      await remove();
    }
  };
  const gzip = createGzip();
  // An answer abandoned before its first byte never starts the generator: the copy goes then.
  gzip.once("close", () => void remove());
  pipeline(Readable.from(sources()), gzip, (error) => {
    if (error) gzip.destroy(error);
  });
  return gzip;
}

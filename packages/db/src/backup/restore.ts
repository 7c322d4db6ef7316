// Loads an embedded backup (snapshot.ts) into an empty data folder (CONTRACT §22, `pnpm restore`): into a
// folder of its own first, checked by opening it, and moved into place only when all of it is good, so a
// bad file changes nothing (docs/adr/0037-embedded-backups.md).
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { openDb } from "../client.ts";
import { lockDataDir } from "../lock.ts";
import { BACKUP_FORMAT, DATA_PREFIX, MANIFEST_NAME, type BackupCounts, type BackupManifest } from "./snapshot.ts";
import { readTar, TarError } from "./tar.ts";

/** A restore that could not be done, with the one line that says why; nothing was changed. */
export class RestoreError extends Error {}

/** The file Postgres reads first: moved last, so a move cut short never looks like a database. */
const VERSION_FILE = "PG_VERSION";
/** The largest manifest read (it is a few hundred bytes). */
const MAX_MANIFEST = 64 * 1024;

export type RestoreResult = { manifest: BackupManifest; counts: BackupCounts };

/**
 * Restores the backup `file` into `dataDir`, which must be missing or empty. Reads the archive into a
 * hidden folder inside `dataDir` (the same disk, so the final moves are renames), opens it with PGlite
 * (PostgreSQL's recovery runs, and a database that does not open is refused), checks its counts against
 * the manifest's, then moves it into place. On any failure `dataDir` is left as it was: a folder that
 * did not exist is removed again, an empty one is emptied again.
 */
export async function restoreEmbedded(file: string, dataDir: string, options: { pgliteSettings?: Readonly<Record<string, string>> } = {}): Promise<RestoreResult> {
  if (!existsSync(file)) throw new RestoreError(`${file}: no such file.`);
  if (!statSync(file).isFile()) throw new RestoreError(`${file} is not a file.`);
  if (statSync(file).size === 0) throw new RestoreError(`${file} is empty: not a backup of this service.`);
  const isNew = !existsSync(dataDir);
  if (!isNew) {
    if (!statSync(dataDir).isDirectory()) throw new RestoreError(`DATA_DIR ${dataDir} is not a folder.`);
    if (readdirSync(dataDir).length > 0) throw new RestoreError(`DATA_DIR ${dataDir} is not empty: restore into an empty or new folder (move the old one aside first).`);
  }
  mkdirSync(dataDir, { recursive: true });
  // The service's lock: a start on this folder meanwhile is refused, and this restore refuses a running one.
  let unlock: () => void;
  try {
    unlock = lockDataDir(dataDir);
  } catch (error) {
    if (isNew) rmSync(dataDir, { recursive: true, force: true });
    throw new RestoreError((error as Error).message);
  }
  const staging = join(dataDir, `.restoring-${process.pid}`);
  try {
    const manifest = await extract(file, staging);
    const pgdata = join(staging, DATA_PREFIX);
    if (!existsSync(join(pgdata, VERSION_FILE))) throw new RestoreError(`${file} holds no database (no ${DATA_PREFIX}/${VERSION_FILE}): not a backup of this service.`);
    const counts = await checkDatabase(file, pgdata, manifest, options.pgliteSettings);
    // Into place: everything but PG_VERSION, then PG_VERSION.
    for (const entry of readdirSync(pgdata)) if (entry !== VERSION_FILE) renameSync(join(pgdata, entry), join(dataDir, entry));
    renameSync(join(pgdata, VERSION_FILE), join(dataDir, VERSION_FILE));
    rmSync(staging, { recursive: true, force: true });
    unlock();
    return { manifest, counts };
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    unlock();
    if (isNew) rmSync(dataDir, { recursive: true, force: true });
    else for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true });
    throw error instanceof RestoreError ? error : new RestoreError(`${file} cannot be restored: ${(error as Error).message}`);
  }
}

/** Reads the archive into `staging`: the manifest first (or it is not a backup), then the data folder. */
async function extract(file: string, staging: string): Promise<BackupManifest> {
  mkdirSync(staging);
  let manifest: BackupManifest | undefined;
  const gunzip = createGunzip();
  const source = createReadStream(file);
  source.pipe(gunzip);
  source.once("error", (error) => gunzip.destroy(error));
  try {
    await readTar(gunzip, async (entry, content) => {
      if (!manifest) {
        if (entry.name !== MANIFEST_NAME || entry.type !== "file" || entry.size > MAX_MANIFEST)
          throw new RestoreError(`${file} is an archive but not a backup of this service (it does not start with ${MANIFEST_NAME}).`);
        const parts: Buffer[] = [];
        for await (const part of content) parts.push(part);
        manifest = parseManifest(file, Buffer.concat(parts).toString("utf8"));
        return;
      }
      if (entry.name !== DATA_PREFIX && !entry.name.startsWith(`${DATA_PREFIX}/`))
        throw new RestoreError(`${file} holds ${entry.name}, outside its ${DATA_PREFIX}/ folder: not a backup of this service.`);
      const target = join(staging, entry.name);
      if (entry.type === "dir") await mkdir(target, { recursive: true });
      else {
        await mkdir(dirname(target), { recursive: true });
        await pipeline(content, createWriteStream(target, { flags: "wx" }));
      }
    });
  } catch (error) {
    if (error instanceof RestoreError) throw error;
    if (error instanceof TarError) throw new RestoreError(`${file} is damaged: ${error.message}.`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "Z_BUF_ERROR") throw new RestoreError(`${file} is truncated: the compressed data ends early.`);
    if (code === "Z_DATA_ERROR") throw new RestoreError(`${file} is not a backup of this service (not gzip data, or damaged).`);
    throw error;
  } finally {
    source.destroy();
  }
  if (!manifest) throw new RestoreError(`${file} is an empty archive: not a backup of this service.`);
  return manifest;
}

function parseManifest(file: string, text: string): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RestoreError(`${file} has a damaged ${MANIFEST_NAME}.`);
  }
  const m = value as Partial<BackupManifest> | null;
  if (!m || m.format !== BACKUP_FORMAT || typeof m.counts !== "object") throw new RestoreError(`${file} is an archive but not a backup of this service (its ${MANIFEST_NAME} says otherwise).`);
  if (m.formatVersion !== 1) throw new RestoreError(`${file} is a backup of format ${String(m.formatVersion)}, which this release cannot read: restore it with a newer release.`);
  return m as BackupManifest;
}

/** Opens the restored folder (PostgreSQL's recovery runs) and counts what the backup said it holds. */
async function checkDatabase(file: string, pgdata: string, manifest: BackupManifest, pgliteSettings: Readonly<Record<string, string>> | undefined): Promise<BackupCounts> {
  let database;
  try {
    database = await openDb({ dataDir: pgdata, ...(pgliteSettings ? { pgliteSettings } : {}) });
  } catch (error) {
    throw new RestoreError(`${file} holds a database this release cannot open (PostgreSQL ${manifest.postgres}): ${(error as Error).message}`);
  }
  try {
    const { rows } = await (database.pglite as NonNullable<typeof database.pglite>).query<{ users: number; api_keys: number; domains: number; links: number; clicks: string | number }>(
      `select (select count(*) from users)::int as users, (select count(*) from api_keys)::int as api_keys, (select count(*) from domains)::int as domains,
              (select count(*) from links)::int as links, (select coalesce(sum(clicks), 0) from links)::bigint as clicks`,
    );
    const row = rows[0];
    if (!row) throw new RestoreError(`${file} holds a database that does not answer.`);
    const counts: BackupCounts = { users: row.users, apiKeys: row.api_keys, domains: row.domains, links: row.links, clicks: Number(row.clicks) };
    const expected = manifest.counts;
    for (const key of Object.keys(expected) as Array<keyof BackupCounts>) {
      if (counts[key] !== expected[key]) throw new RestoreError(`${file} is damaged: its database has ${counts[key]} ${key} where the backup recorded ${expected[key]}.`);
    }
    return counts;
  } catch (error) {
    if (error instanceof RestoreError) throw error;
    throw new RestoreError(`${file} holds a database that is not this service's: ${(error as Error).message}`);
  } finally {
    await database.close();
  }
}

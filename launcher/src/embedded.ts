import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrate, openDb, MIGRATIONS_FOLDER } from "@shortener/db";

/**
 * Settings of the embedded database (PGlite). Its default 128 MB buffer pool is the largest part of an
 * idle embedded process; 32 MB holds the working set of a single-node deployment (ADR 0022).
 */
export const EMBEDDED_SETTINGS = { shared_buffers: "32MB" } as const;

/**
 * Where `pnpm build` leaves an empty, migrated embedded database (make-embedded-template.ts), and the
 * fingerprint of the migrations it holds. Both are build output: the same place from dist and from src.
 */
export const TEMPLATE_DIR = fileURLToPath(new URL("../dist/embedded-template", import.meta.url));
const TEMPLATE_STAMP = "shortener-migrations.sha256";
/** The file Postgres reads first: copied last, so a copy cut short never looks like a database. */
const VERSION_FILE = "PG_VERSION";

/** Whether DATA_DIR holds no database yet (PGlite would run initdb on open). */
export function needsInitdb(dataDir: string): boolean {
  return !existsSync(join(dataDir, VERSION_FILE));
}

/** Creates the embedded database in `dataDir` and brings it to the newest migration, then closes it. */
export async function prepareEmbedded(dataDir: string): Promise<void> {
  const database = await openDb({ dataDir, pgliteSettings: EMBEDDED_SETTINGS });
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
}

/** A fingerprint of the committed migrations: a template made from other migrations is not used. */
export function migrationsFingerprint(): string {
  return createHash("sha256")
    .update(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json")))
    .digest("hex");
}

/**
 * Makes the template in `templateDir`: a database created and migrated in a child process (which holds
 * no secret: the service writes its secret and first key at its own start), then the fingerprint of
 * its migrations. Built beside the target and renamed into place, so a template is whole or absent.
 */
export async function makeEmbeddedTemplate(templateDir: string): Promise<void> {
  const building = `${templateDir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  await prepareEmbeddedInChild(building);
  // Build output, read by whoever runs the service: a checkout built by root, served by its own user
  // (docs/deploying.md). PGlite writes some files 0600; the template holds no secret.
  setModes(building, 0o644, 0o755);
  writeFileSync(join(building, TEMPLATE_STAMP), `${migrationsFingerprint()}\n`);
  rmSync(templateDir, { recursive: true, force: true });
  renameSync(building, templateDir);
}

/**
 * Fills an empty DATA_DIR from the template, when the template exists and holds the migrations this
 * build has. Returns false when it cannot (no template: a run from source before any build; other
 * migrations), and the caller creates the database itself. Files the folder already holds (the lock)
 * are kept.
 */
export function copyEmbeddedTemplate(dataDir: string, templateDir = TEMPLATE_DIR): boolean {
  const stamp = join(templateDir, TEMPLATE_STAMP);
  if (!existsSync(stamp) || readFileSync(stamp, "utf8").trim() !== migrationsFingerprint()) return false;
  mkdirSync(dataDir, { recursive: true });
  for (const entry of readdirSync(templateDir)) {
    if (entry === TEMPLATE_STAMP || entry === VERSION_FILE) continue;
    cpSync(join(templateDir, entry), join(dataDir, entry), { recursive: true });
    // The copy is the service's own data: as private as initdb makes it.
    setModes(join(dataDir, entry), 0o600, 0o700);
  }
  cpSync(join(templateDir, VERSION_FILE), join(dataDir, VERSION_FILE));
  setModes(join(dataDir, VERSION_FILE), 0o600, 0o700);
  return true;
}

/** Gives every file under `path` (or `path` itself) `fileMode` and every folder `dirMode`. */
function setModes(path: string, fileMode: number, dirMode: number): void {
  if (!statSync(path).isDirectory()) return chmodSync(path, fileMode);
  chmodSync(path, dirMode);
  for (const entry of readdirSync(path)) setModes(join(path, entry), fileMode, dirMode);
}

/**
 * How `pnpm start` creates a new embedded database: a copy of the build's template (a fraction of a
 * second), or, without one, `prepareEmbedded` in a child process (docs/adr/0030-memory-at-rest.md).
 */
export async function prepareEmbeddedForStart(dataDir: string): Promise<void> {
  if (!copyEmbeddedTemplate(dataDir)) await prepareEmbeddedInChild(dataDir);
}

/**
 * `prepareEmbedded` in a child process that exits when done. initdb and the first migrations grow
 * PGlite's WebAssembly memory and the C allocator's arenas by 100–450 MB that a process never gives
 * back; done in a child, the serving process opens a ready database and starts at the size of every
 * later start (docs/adr/0030-memory-at-rest.md). The caller holds the data folder's lock.
 */
export function prepareEmbeddedInChild(dataDir: string): Promise<void> {
  // Built, the child runs JavaScript with this process's Node options; from source (dev, tests), through tsx.
  const fromSource = import.meta.url.endsWith(".ts");
  const script = fileURLToPath(new URL(fromSource ? "./prepare-embedded.ts" : "./prepare-embedded.js", import.meta.url));
  const nodeArgs = fromSource ? ["--import", "tsx"] : process.execArgv;
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [...nodeArgs, script, dataDir], { stdio: ["ignore", "inherit", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", fail);
    child.once("exit", (code, signal) => {
      if (code === 0) ok();
      else fail(new Error(`creating the embedded database in DATA_DIR ${dataDir} failed (${signal ?? `exit ${code}`}): ${stderr.trim().split("\n").at(-1) ?? ""}`));
    });
  });
}

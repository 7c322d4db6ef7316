import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrate, openDb } from "@shortener/db";

/**
 * Settings of the embedded database (PGlite). Its default 128 MB buffer pool is the largest part of an
 * idle embedded process; 32 MB holds the working set of a single-node deployment (ADR 0022).
 */
export const EMBEDDED_SETTINGS = { shared_buffers: "32MB" } as const;

/** Whether DATA_DIR holds no database yet (PGlite would run initdb on open). */
export function needsInitdb(dataDir: string): boolean {
  return !existsSync(join(dataDir, "PG_VERSION"));
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

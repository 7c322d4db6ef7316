import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * PGlite is a single-process database: two processes on one data folder would corrupt it. A pid file
 * refuses a second start while the first is alive, and is taken over when its owner is gone.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "shortener.pid");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(readFileSync(path, "utf8").trim());
      if (owner && isAlive(owner)) {
        throw new Error(`DATA_DIR ${dataDir} is in use by process ${owner}: stop it first, or set DATABASE_URL to share a Postgres.`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock DATA_DIR ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

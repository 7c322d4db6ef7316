import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { Database } from "@shortener/db";
import { openSharedTestDb, type SharedTestDb } from "@shortener/db/testing";
import { afterAll, beforeAll } from "vitest";
import { runCli } from "../src/run-cli.ts";

/** A log for a worker under test: quiet, but its errors reach the test's output. */
export const quietLog = {
  info() {},
  warn() {},
  error(obj: unknown) {
    console.error(obj);
  },
};

export type CliFixture = {
  /** A temporary folder for the files the test imports (and their errors files). */
  dir: string;
  /** The database, opened for `fn` (on PGlite only between CLI runs: `openSharedTestDb`). */
  withDb<T>(fn: (database: Database) => Promise<T>): Promise<T>;
  /** `pnpm importer …` in this process, on that database: its exit status and what it wrote. */
  cli(...argv: string[]): Promise<{ code: number; out: string; err: string }>;
};

/**
 * What a test file of the CLI needs, set up before its tests and removed after them: a database the CLI
 * opens itself (from DATABASE_URL or DATA_DIR) and a folder for files.
 */
export function useCliFixture(prefix: string): CliFixture {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let shared: SharedTestDb | undefined;
  beforeAll(async () => {
    shared = await openSharedTestDb();
  });
  afterAll(async () => {
    await shared?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const opened = (): SharedTestDb => {
    if (!shared) throw new Error("the database is opened in beforeAll");
    return shared;
  };
  return {
    dir,
    withDb: (fn) => opened().withDb(fn),
    async cli(...argv) {
      let out = "";
      let err = "";
      const sink = (append: (s: string) => void) => new Writable({ write: (chunk, _e, done) => (append(String(chunk)), done()) });
      const code = await runCli(argv, opened().settings, { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)) });
      return { code, out, err };
    },
  };
}

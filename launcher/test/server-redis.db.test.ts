import { freePort } from "@shortener/db/testing";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { openTestDb } from "@shortener/core/testing";
import { testDriver } from "@shortener/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "../src/env.ts";
import { startServer } from "../src/server.ts";

/** REDIS_URL reaches the API's rate limits (CONTRACT §10, §13). */
let settings: Record<string, string>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  if (testDriver() === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "shortener-redis-"));
    settings = { DATA_DIR: dir };
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const db = await openTestDb();
    await db.db.execute("drop schema public cascade; create schema public; drop schema if exists drizzle cascade;" as never);
    settings = { DATABASE_URL: db.url ?? "" };
    cleanup = () => db.close();
  }
});
afterAll(async () => {
  await cleanup?.();
});

describe("REDIS_URL", () => {
  it("an unreachable Redis stops the start with one line naming it, and leaves the data folder usable", async () => {
    const port = await freePort();
    const env = (extra: Record<string, string>) => parseEnv({ ...settings, PORT: String(port), ...extra });
    await expect(startServer(env({ REDIS_URL: "redis://127.0.0.1:1" }), pino({ level: "silent" }))).rejects.toThrow(/^REDIS_URL cannot be reached/);
    const running = await startServer(env({}), pino({ level: "silent" }));
    await running.close();
  });
});

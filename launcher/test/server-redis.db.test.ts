import { freePort, openServerStorage } from "@shortener/db/testing";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "../src/env.ts";
import { startServer } from "../src/server.ts";

/** REDIS_URL reaches the API's rate limits (CONTRACT §10, §13). */
let settings: Record<string, string>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const storage = await openServerStorage();
  settings = storage.settings;
  cleanup = () => storage.close();
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

import { freePort } from "@shortener/db/testing";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../src/env.ts";
import { startServer } from "../src/server.ts";
import { useServerStorage } from "./helpers.ts";

/** REDIS_URL reaches the API's rate limits (CONTRACT §10, §13). */
const storage = useServerStorage();

describe("REDIS_URL", () => {
  it("an unreachable Redis stops the start with one line naming it, and leaves the data folder usable", async () => {
    const port = await freePort();
    const env = (extra: Record<string, string>) => parseEnv({ ...storage.settings, PORT: String(port), ...extra });
    await expect(startServer(env({ REDIS_URL: "redis://127.0.0.1:1" }), pino({ level: "silent" }))).rejects.toThrow(/^REDIS_URL cannot be reached/);
    const running = await startServer(env({}), pino({ level: "silent" }));
    await running.close();
  }, 90_000);
});

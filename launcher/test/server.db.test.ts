import { readFileSync } from "node:fs";
import { freePort } from "@shortener/db/testing";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../src/env.ts";
import { startServer } from "../src/server.ts";
import { useServerStorage } from "./helpers.ts";

const logger = pino({ level: "silent" });
const ADMIN_KEY = `shk_${"A".repeat(40)}`;

/** Each run gets its own storage: a temporary data folder, or its own Postgres database. */
const storage = useServerStorage();
/** The release, from the one place it is written (CONTRACT §22). */
const RELEASE = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

async function start(port: number) {
  return startServer(parseEnv({ ...storage.settings, PORT: String(port), ADMIN_API_KEY: ADMIN_KEY }), logger);
}

async function get(url: string, key?: string) {
  const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as any };
}

describe("the all-in-one server", () => {
  it("keeps every user and key across a stop and a start, and bootstraps only once", async () => {
    const port = await freePort();
    const first = await start(port);
    expect(first.boot.created).toBe(true);
    const base = `http://127.0.0.1:${port}`;
    expect((await get(`${base}/api/v1/account`, ADMIN_KEY)).body.data.role).toBe("admin");
    const res = await fetch(`${base}/api/v1/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/x-www-form-urlencoded" },
      body: "email=kept%40example.test&name=Kept",
    });
    const userKey = ((await res.json()) as any).data.api_key as string;
    expect(res.status).toBe(201);
    await first.close();

    const second = await start(port);
    try {
      expect(second.boot.created).toBe(false);
      expect((await get(`${base}/api/v1/account`, userKey)).body.data.email).toBe("kept@example.test");
      expect((await get(`${base}/api/v1/account`, ADMIN_KEY)).status).toBe(200);
      expect((await get(`${base}/healthz`)).body).toEqual({ status: "ok", version: RELEASE });
      expect((await get(`${base}/readyz`)).body).toEqual({ status: "ok" });
      const visitor = await fetch(`${base}/some-alias`, { redirect: "manual" });
      expect(visitor.status).toBe(404);
      expect(visitor.headers.get("content-type")).toBe("text/html; charset=utf-8");
    } finally {
      await second.close();
    }
    // Two whole starts of the service (PGlite opens in 5–15 s on a busy machine): more than the default 30 s.
  }, 120_000);
});

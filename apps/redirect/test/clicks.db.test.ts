import { freePort } from "@shortener/db/testing";
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import { openTestDb } from "@shortener/core/testing";
import { testDriver } from "@shortener/db/testing";
import { clicks, links, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClickBuffer } from "../src/clicks.ts";
import { createSite, httpRequest, startVisitor } from "./helpers.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

let database: Database & { url?: string };
beforeAll(async () => {
  database = await openTestDb({ poolSize: 20 });
});
afterAll(async () => {
  await database?.close();
});

/** Two visitor sides on one database: real processes on Postgres; two in-process apps on PGlite (single-process by nature). */
type Side = { port: number; stop(): Promise<void> };

async function startProcess(url: string): Promise<Side> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "launcher/src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), SERVICES: "redirect", LOG_LEVEL: "warn", DATABASE_POOL_SIZE: "10" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((ok) => child.once("exit", (code) => ok(code)));
  for (let i = 0; ; i++) {
    if (output.includes("is running at")) break;
    if (i > 300 || child.exitCode !== null) throw new Error(`redirect process did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    async stop() {
      child.kill("SIGTERM");
      const code = await exited;
      if (code !== 0) throw new Error(`redirect process exited with ${code}:\n${output}`);
    },
  };
}

async function startTwo(): Promise<[Side, Side]> {
  if (testDriver() === "postgres") {
    const url = database.url;
    if (!url) throw new Error("no database url");
    return Promise.all([startProcess(url), startProcess(url)]);
  }
  const a = await startVisitor(database);
  const b = await startVisitor(database);
  return [
    { port: a.port, stop: () => a.close() },
    { port: b.port, stop: () => b.close() },
  ];
}

describe("clicks", () => {
  it("expiration_clicks = 25: of 200 concurrent visitors over two visitor sides, exactly 25 reach the destination", async () => {
    const site = await createSite(database);
    const link = await site.link({ url: "https://limited.example/", expiration_clicks: 25, expiration_url: "https://sold-out.example/" });
    const [a, b] = await startTwo();
    try {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => httpRequest(i % 2 ? a.port : b.port, `/${link.alias}`, { host: site.host })),
      );
      const locations = results.map((r) => `${r.status} ${String(r.headers.location)}`);
      expect(locations.filter((l) => l === "302 https://limited.example/")).toHaveLength(25);
      expect(locations.filter((l) => l === "302 https://sold-out.example/")).toHaveLength(175);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, link.id));
    expect(row?.clicks).toBe(25);
    expect(await database.db.select().from(clicks).where(eq(clicks.linkId, link.id))).toHaveLength(25);
  });

  it("no click is lost: K visits, a graceful stop, K clicks", async () => {
    const site = await createSite(database);
    const link = await site.link();
    const [a, b] = await startTwo();
    const K = 120;
    let stopped = false;
    try {
      const results = await Promise.all(Array.from({ length: K }, (_, i) => httpRequest(i % 3 ? a.port : b.port, `/${link.alias}`, { host: site.host })));
      expect(results.every((r) => r.status === 302)).toBe(true);
      await Promise.all([a.stop(), b.stop()]);
      stopped = true;
    } finally {
      if (!stopped) await Promise.all([a.stop(), b.stop()]).catch(() => {});
    }
    expect(await database.db.select().from(clicks).where(eq(clicks.linkId, link.id))).toHaveLength(K);
    const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, link.id));
    expect(row?.clicks).toBe(K);
  });

  it("clicks wait in memory until the flush: a long flush interval still loses nothing on close", async () => {
    const site = await createSite(database);
    const link = await site.link();
    const side = await startVisitor(database, { clickBuffer: { flushMs: 600_000, maxBatch: 1_000_000, maxBuffered: 1_000_000 } });
    for (let i = 0; i < 30; i++) await side.visit(`/${link.alias}`, { host: site.host });
    expect(await database.db.select().from(clicks).where(eq(clicks.linkId, link.id))).toHaveLength(0);
    await side.close();
    expect(await database.db.select().from(clicks).where(eq(clicks.linkId, link.id))).toHaveLength(30);
  });

  it("a flush drains everything waiting, in chunks of maxBatch", async () => {
    const site = await createSite(database);
    const link = await site.link();
    const buffer = createClickBuffer(database.db, { flushMs: 600_000, maxBatch: 100, maxBuffered: 1_000_000 });
    const at = new Date();
    for (let i = 0; i < 1050; i++) {
      buffer.add({ linkId: link.id, at, country: null, platform: null, browser: null, device: "desktop", language: null, referrer: null, counted: false, rotation: null });
    }
    await buffer.flush();
    expect(buffer.pending).toBe(0);
    expect(await database.db.select().from(clicks).where(eq(clicks.linkId, link.id))).toHaveLength(1050);
    const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, link.id));
    expect(row?.clicks).toBe(1050);
    await buffer.close();
  });

  it("clicks of a link deleted before the flush are dropped without failing the batch", async () => {
    const site = await createSite(database);
    const kept = await site.link();
    const gone = await site.link();
    const side = await startVisitor(database, { clickBuffer: { flushMs: 600_000, maxBatch: 1_000_000, maxBuffered: 1_000_000 } });
    await side.visit(`/${kept.alias}`, { host: site.host });
    await side.visit(`/${gone.alias}`, { host: site.host });
    await database.db.delete(links).where(eq(links.id, gone.id));
    await side.close();
    expect(await database.db.select().from(clicks).where(eq(clicks.linkId, kept.id))).toHaveLength(1);
  });
});

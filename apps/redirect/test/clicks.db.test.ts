import { asc, eq, inArray, sql } from "drizzle-orm";
import type { Click } from "@shortener/core";
import { openTestDb } from "@shortener/core/testing";
import { clicks, links, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClickBuffer } from "../src/clicks.ts";
import { createSite, httpRequest, startTwoSides, startVisitor } from "./helpers.ts";

let database: Database & { url?: string };
beforeAll(async () => {
  database = await openTestDb({ poolSize: 20 });
});
afterAll(async () => {
  await database?.close();
});

/** Clicks recorded for a link: a row stands for `count` identical ones. */
async function clickCount(linkId: number): Promise<number> {
  const [row] = await database.db
    .select({ n: sql<number>`coalesce(sum(${clicks.count}), 0)::int` })
    .from(clicks)
    .where(eq(clicks.linkId, linkId));
  return Number(row?.n);
}

const startTwo = () => startTwoSides(database);

/** A person's click on `linkId` at `at`, from a French Firefox on Linux sent by a.example: the groups' tests vary one field of it. */
function frenchFirefoxClick(linkId: number, at: Date): Click {
  return { linkId, at, country: "FR", platform: "Linux", browser: "Firefox", device: "desktop", language: "fr", referrer: "a.example", counted: false, rotation: null };
}

describe("clicks", () => {
  it("expiration_clicks = 25: of 200 concurrent visitors over two visitor sides, exactly 25 reach the destination", async () => {
    const site = await createSite(database);
    const link = await site.link({ url: "https://limited.example/", expiration_clicks: 25, expiration_url: "https://sold-out.example/" });
    const [a, b] = await startTwo();
    try {
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => httpRequest(i % 2 ? a.port : b.port, `/${link.alias}`, { host: site.host })));
      const locations = results.map((r) => `${r.status} ${String(r.headers.location)}`);
      expect(locations.filter((l) => l === "302 https://limited.example/")).toHaveLength(25);
      expect(locations.filter((l) => l === "302 https://sold-out.example/")).toHaveLength(175);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, link.id));
    expect(row?.clicks).toBe(25);
    expect(await clickCount(link.id)).toBe(25);
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
    expect(await clickCount(link.id)).toBe(K);
    const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, link.id));
    expect(row?.clicks).toBe(K);
  });

  it("clicks wait in memory until the flush: a long flush interval still loses nothing on close", async () => {
    const site = await createSite(database);
    const link = await site.link();
    const side = await startVisitor(database, { clickBuffer: { flushMs: 600_000, maxBatch: 1_000_000, maxBuffered: 1_000_000 } });
    for (let i = 0; i < 30; i++) await side.visit(`/${link.alias}`, { host: site.host });
    expect(await clickCount(link.id)).toBe(0);
    await side.close();
    expect(await clickCount(link.id)).toBe(30);
  });

  it("a flush drains everything waiting, in chunks of maxBatch", async () => {
    const site = await createSite(database);
    const link = await site.link();
    const buffer = createClickBuffer(database.db, { flushMs: 600_000, maxBatch: 100, maxBuffered: 1_000_000 });
    const at = new Date();
    // 1050 different referrers: 1050 rows, written 100 at a time.
    for (let i = 0; i < 1050; i++) {
      buffer.add({ linkId: link.id, at, country: null, platform: null, browser: null, device: "desktop", language: null, referrer: `r${i}.example`, counted: false, rotation: null });
    }
    await buffer.flush();
    expect(buffer.pending).toBe(0);
    expect(await database.db.select().from(clicks).where(eq(clicks.linkId, link.id))).toHaveLength(1050);
    expect(await clickCount(link.id)).toBe(1050);
    const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, link.id));
    expect(row?.clicks).toBe(1050);
    await buffer.close();
  });

  it("identical clicks share a row (same link, second and traits); any difference opens another", async () => {
    const site = await createSite(database);
    const link = await site.link();
    const other = await site.link();
    const buffer = createClickBuffer(database.db, { flushMs: 600_000, maxBatch: 1_000, maxBuffered: 1_000_000 });
    const second = (Math.floor(Date.now() / 1000) - 60) * 1000;
    const base = frenchFirefoxClick(link.id, new Date(second + 100));
    const visits: Click[] = [
      base,
      { ...base, at: new Date(second + 999) },
      { ...base },
      { ...base, at: new Date(second + 1000) },
      { ...base, country: null },
      { ...base, platform: null },
      { ...base, browser: "Chrome" },
      { ...base, device: "mobile" },
      { ...base, language: null },
      { ...base, referrer: null },
      { ...base, referrer: "" },
      // Two that a plain separator-joined key would confuse.
      { ...base, browser: "A|B", device: "C" },
      { ...base, browser: "A", device: "B|C" },
      { ...base, counted: true },
      { ...base, linkId: other.id },
    ];
    for (const visit of visits) buffer.add(visit);
    expect(buffer.pending).toBe(15);
    expect(buffer.pendingRows).toBe(13);
    await buffer.close();

    const rows = await database.db
      .select()
      .from(clicks)
      .where(inArray(clicks.linkId, [link.id, other.id]))
      .orderBy(asc(clicks.createdAt));
    expect(rows).toHaveLength(13);
    expect(rows.reduce((n, r) => n + r.count, 0)).toBe(15);
    const grouped = rows.filter((r) => r.count > 1);
    expect(grouped).toHaveLength(1);
    expect(grouped[0]).toMatchObject({ linkId: link.id, country: "FR", browser: "Firefox", referrer: "a.example", count: 3 });
    expect(grouped[0]?.createdAt.getTime()).toBe(second + 100);
    const [counter] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, link.id));
    // The counted click had raised the counter already (a click-limited link's admission).
    expect(counter?.clicks).toBe(13);
    expect(await clickCount(other.id)).toBe(1);
  });

  it.each<[string, Partial<Click>]>([
    ["the next second", { at: new Date(0) }],
    ["another link", { linkId: -1 }],
    ["counted", { counted: true }],
    ["a bot's", { bot: "Googlebot" }],
    ["another rotation entry", { variant: "https://b.example/" }],
    ["no country", { country: null }],
    ["another platform", { platform: "Windows" }],
    ["no browser", { browser: null }],
    ["another device", { device: "mobile" }],
    ["another language", { language: "de" }],
    ["an empty referrer", { referrer: "" }],
    ["no referrer", { referrer: null }],
  ])("a click right after one of another group opens its own row (%s), and the first group's next click finds its row", async (_, change) => {
    const site = await createSite(database);
    const link = await site.link();
    const other = await site.link();
    const buffer = createClickBuffer(database.db, { flushMs: 600_000, maxBatch: 1_000, maxBuffered: 1_000_000 });
    const second = (Math.floor(Date.now() / 1000) - 60) * 1000;
    const base: Click = { ...frenchFirefoxClick(link.id, new Date(second)), variant: null, bot: null, visitors: ["v1"] };
    const variant: Click = { ...base, ...change, visitors: ["v2"] };
    if (change.at) variant.at = new Date(second + 1000);
    if (change.linkId) variant.linkId = other.id;
    buffer.add(base);
    buffer.add(variant);
    expect(buffer.pendingRows).toBe(2);
    buffer.add({ ...base, visitors: ["v3"] });
    buffer.add({ ...base, visitors: ["v1"] });
    expect(buffer.pendingRows).toBe(2);
    expect(buffer.pending).toBe(4);
    await buffer.close();
    const rows = await database.db
      .select({ linkId: clicks.linkId, count: clicks.count, createdAt: clicks.createdAt })
      .from(clicks)
      .where(inArray(clicks.linkId, [link.id, other.id]))
      .orderBy(asc(clicks.createdAt));
    // A bot's visit is no click row (CONTRACT §21): only its rollups.
    expect(rows.map((r) => r.count).sort()).toEqual(change.bot ? [3] : [1, 3]);
  });

  it("a rotating link's rows all carry the index served last, whatever their order", async () => {
    const site = await createSite(database);
    const link = await site.link();
    const buffer = createClickBuffer(database.db, { flushMs: 600_000, maxBatch: 1_000, maxBuffered: 1_000_000 });
    const at = new Date();
    const click = (rotation: number, referrer: string): Click => ({
      linkId: link.id,
      at,
      country: null,
      platform: null,
      browser: null,
      device: "desktop",
      language: null,
      referrer,
      counted: false,
      rotation,
    });
    // Three rows; the first (referrer a) also holds the last visit, which was served index 0.
    for (const [rotation, referrer] of [
      [1, "a"],
      [2, "b"],
      [1, "c"],
      [0, "a"],
    ] as const)
      buffer.add(click(rotation, referrer));
    await buffer.close();
    const [row] = await database.db.select({ lastRotation: links.lastRotation, clicks: links.clicks }).from(links).where(eq(links.id, link.id));
    expect(row).toEqual({ lastRotation: 0, clicks: 4 });
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
    expect(await clickCount(kept.id)).toBe(1);
  });
});

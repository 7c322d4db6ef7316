import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clicks, links, type Database } from "@shortener/db";
import { openTestDbBehindProxy, type ProxiedTestDb, type TcpProxy } from "@shortener/db/testing";
import { createSite, startVisitor, type Site, type Visitor } from "./helpers.ts";

/**
 * CONTRACT §16 on the visitor side: while the database is unreachable, a link found before still
 * redirects (even past its cache TTL), a visit that needs the database gets a 503 page (Retry-After,
 * CSP frame-ancestors 'none'), never a 500; clicks wait in memory and are written when it is back;
 * past the buffer's bound, the oldest are dropped and counted. The database goes away through a TCP
 * proxy the test stops. Postgres only: PGlite runs inside the process and cannot become unreachable.
 */
describe("the visitor side while the database is unreachable (Postgres only: PGlite is in-process)", () => {
  let outage: ProxiedTestDb;
  let direct: Database;
  let viaProxy: Database;
  let proxy: TcpProxy;
  let site: Site;

  beforeAll(async () => {
    outage = await openTestDbBehindProxy();
    ({ direct, viaProxy, proxy } = outage);
    site = await createSite(direct);
  });
  afterAll(async () => {
    await outage?.close();
  });

  async function untilBack(visitor: Visitor, path: string) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await visitor.visit(path, { host: site.host });
      if (res.status !== 503 || Date.now() > deadline) return res;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const clicksOf = async (linkId: number) => {
    const [row] = await direct.db.select({ counter: links.clicks }).from(links).where(eq(links.id, linkId));
    const [sum] = await direct.db
      .select({ n: sql<number>`coalesce(sum(${clicks.count}), 0)::int` })
      .from(clicks)
      .where(eq(clicks.linkId, linkId));
    return { counter: row?.counter, rows: sum?.n };
  };

  it("redirects cached links (past their TTL), answers 503 pages for the rest, and writes the waiting clicks when the database is back", { timeout: 120_000 }, async () => {
    // A 200 ms TTL: the cached entries are long expired when the outage comes; only stale entries can answer.
    const visitor = await startVisitor(viaProxy, { cache: { maxLinks: 1000, ttlMs: 200, missTtlMs: 100 } });
    try {
      const cached = await site.link();
      const uncached = await site.link();
      expect((await visitor.visit(`/${cached.alias}`, { host: site.host })).status).toBe(302);
      await visitor.app.flushClicks();
      await new Promise((r) => setTimeout(r, 300));

      await proxy.stop();
      const during = [];
      for (let i = 0; i < 20; i++) during.push(await visitor.visit(`/${cached.alias}`, { host: site.host }));
      expect(during.map((r) => r.status)).toEqual(Array(20).fill(302));
      expect(during[0]?.headers.location).toBe("https://dest.example/path");

      for (const path of [`/${uncached.alias}`, "/no-such-alias"]) {
        const res = await visitor.visit(path, { host: site.host });
        expect(res.status).toBe(503);
        expect(res.headers["retry-after"]).toBe("5");
        expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
        expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
        expect(res.body).toContain("Temporarily unavailable");
      }
      // A host not seen before needs the database too.
      expect((await visitor.visit("/x", { host: "never-seen.example" })).status).toBe(503);
      // The clicks of the outage wait in memory (a flush fails and keeps them).
      await visitor.app.flushClicks();
      expect(visitor.app.clickStats()).toEqual({ pending: 20, dropped: 0 });

      await proxy.start();
      expect((await untilBack(visitor, `/${uncached.alias}`)).status).toBe(302);
      await visitor.app.flushClicks();
      expect(visitor.app.clickStats()).toEqual({ pending: 0, dropped: 0 });
      expect(await clicksOf(cached.id)).toEqual({ counter: 21, rows: 21 });
      expect(await clicksOf(uncached.id)).toEqual({ counter: 1, rows: 1 });
    } finally {
      await visitor.close();
    }
  });

  it("bounds the clicks waiting in memory: past the bound the oldest are dropped, and counted", { timeout: 120_000 }, async () => {
    const visitor = await startVisitor(viaProxy, { clickBuffer: { flushMs: 50, maxBatch: 2, maxBuffered: 3 } });
    try {
      const link = await site.link();
      expect((await visitor.visit(`/${link.alias}`, { host: site.host })).status).toBe(302);
      await visitor.app.flushClicks();
      await proxy.stop();
      // Five visits with five different referrers: five rows (identical clicks would share one).
      for (let i = 0; i < 5; i++) {
        expect((await visitor.visit(`/${link.alias}`, { host: site.host, headers: { referer: `https://r${i}.example/` } })).status).toBe(302);
      }
      await visitor.app.flushClicks();
      expect(visitor.app.clickStats()).toEqual({ pending: 3, dropped: 2 });
      await proxy.start();
      await untilBack(visitor, `/${link.alias}`);
      await visitor.app.flushClicks();
      expect(visitor.app.clickStats().dropped).toBe(2);
      // The first visit, the three kept and the one after recovery.
      expect(await clicksOf(link.id)).toEqual({ counter: 5, rows: 5 });
    } finally {
      await visitor.close();
    }
  });
});

import { and, eq, sql } from "drizzle-orm";
import { openTestDb } from "@shortener/core/testing";
import { linkStatsDaily, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER, createSite, startVisitor, type Site, type Visitor } from "./helpers.ts";

/* CONTRACT §25: weighted A/B rotation through the real visitor side (docs/link-features.md). */

let database: Database;
let visitor: Visitor;
let site: Site;
beforeAll(async () => {
  database = await openTestDb();
  visitor = await startVisitor(database);
  site = await createSite(database);
});
afterAll(async () => {
  await visitor?.close();
  await database?.close();
});

const WEIGHTS = [50, 30, 20];
const VISITORS = 10_000;
const agentOf = (i: number) => `${BROWSER} Visitor/${i}`;

describe("weighted rotation", () => {
  it(`${VISITORS} distinct visitors are shared within 2 % of the weights; each keeps its variant; variant statistics add up`, async () => {
    const link = await site.link({ target_type: 4, rotation: WEIGHTS.map((weight, i) => ({ value: `https://v${i}.example/`, weight })) });
    const first = new Map<number, string>();
    const served = new Map<string, number>();
    const inFlight = 16;
    for (let start = 0; start < VISITORS; start += inFlight) {
      const batch = Array.from({ length: Math.min(inFlight, VISITORS - start) }, (_, k) => start + k);
      const answers = await Promise.all(batch.map((i) => visitor.visit(`/${link.alias}`, { host: site.host, headers: { "user-agent": agentOf(i) } })));
      answers.forEach((res, k) => {
        expect(res.status).toBe(302);
        const location = String(res.headers.location);
        first.set(batch[k] as number, location);
        served.set(location, (served.get(location) ?? 0) + 1);
      });
    }
    const total = WEIGHTS.reduce((a, b) => a + b, 0);
    const shares = WEIGHTS.map((w, i) => ({ variant: `https://v${i}.example/`, expected: w / total, actual: (served.get(`https://v${i}.example/`) ?? 0) / VISITORS }));
    console.log("weighted A/B shares over %d visitors: %s", VISITORS, shares.map((s) => `${s.variant} expected ${(s.expected * 100).toFixed(1)} % got ${(s.actual * 100).toFixed(2)} %`).join("; "));
    for (const s of shares) expect(Math.abs(s.actual - s.expected)).toBeLessThan(0.02);

    // The same visitor (client group and User-Agent) comes back the same day: the same variant.
    for (let i = 0; i < 300; i++) {
      const again = await visitor.visit(`/${link.alias}`, { host: site.host, headers: { "user-agent": agentOf(i) } });
      expect(again.headers.location).toBe(first.get(i));
    }

    // `name=variant` statistics: a row per entry served, adding up to every person's visit.
    await visitor.app.flushClicks();
    const rows = await database.db
      .select({ value: linkStatsDaily.value, n: sql<number>`sum(${linkStatsDaily.count})::int` })
      .from(linkStatsDaily)
      .where(and(eq(linkStatsDaily.linkId, link.id), eq(linkStatsDaily.dimension, "variant")))
      .groupBy(linkStatsDaily.value);
    const byVariant = new Map(rows.map((r) => [r.value, Number(r.n)]));
    for (const [location, n] of served) expect(byVariant.get(location)).toBe(n + [...first.entries()].slice(0, 300).filter(([, l]) => l === location).length);
  }, 240_000);

  it("an unweighted rotation still goes round-robin", async () => {
    const link = await site.link({ target_type: 4, rotation: [{ value: "https://a.example/" }, { value: "https://b.example/" }] });
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push((await visitor.visit(`/${link.alias}`, { host: site.host })).headers.location);
    expect(seen).toEqual(["https://a.example/", "https://b.example/", "https://a.example/", "https://b.example/"]);
  });
});

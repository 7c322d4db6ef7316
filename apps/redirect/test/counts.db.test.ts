import type { IncomingMessage } from "node:http";
import { sql } from "drizzle-orm";
import { dropPastVisitorDays } from "@shortener/core";
import { openTestDb } from "@shortener/core/testing";
import { queryRows, webhooks, type Database } from "@shortener/db";
import { testDriver } from "@shortener/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botOf } from "../src/bots.ts";
import { describeAgent } from "../src/traits.ts";
import { BROWSER, createSite, httpRequest, IPHONE, startProcess, startVisitor, type Side } from "./helpers.ts";

/** CONTRACT §21 through the real visitor side: people and bots, unique visitors, salts, orphan visits. */
let database: Database & { url?: string };
beforeAll(async () => {
  database = await openTestDb({ poolSize: 20 });
});
afterAll(async () => {
  await database?.close();
});

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const SLACKBOT = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";

/** The bot name the visitor side gives a request (helper "bots" owns the names: the test asks it, not a copy). */
function expectedBot(method: string, headers: Record<string, string>): string | null {
  return botOf({ method, headers } as unknown as IncomingMessage, describeAgent(headers["user-agent"] || undefined));
}

/** `dimension|day|value` → count of a link's rollups. */
async function rollups(linkId: number): Promise<Map<string, number>> {
  const rows = await queryRows<{ k: string; n: string }>(database.db, sql`select dimension || '|' || day::text || '|' || value as k, count::text as n from link_stats_daily where link_id = ${linkId}`);
  return new Map(rows.map((r) => [r.k, Number(r.n)]));
}

function sumOf(map: Map<string, number>, dimension: string): number {
  let n = 0;
  for (const [k, v] of map) if (k.startsWith(`${dimension}|`)) n += v;
  return n;
}

async function counterOf(linkId: number): Promise<number> {
  const [row] = await queryRows<{ clicks: number }>(database.db, sql`select clicks from links where id = ${linkId}`);
  return Number(row?.clicks);
}

async function rawClicks(linkId: number): Promise<number> {
  const [row] = await queryRows<{ n: string }>(database.db, sql`select coalesce(sum(count), 0)::text as n from clicks where link_id = ${linkId}`);
  return Number(row?.n);
}

async function orphans(domainId: number): Promise<string[]> {
  const rows = await queryRows<{ r: string }>(database.db, sql`select kind || '|' || value || '|' || count::text as r from domain_visits_daily where domain_id = ${domainId}`);
  return rows.map((r) => r.r).sort();
}

describe("people and bots (CONTRACT §21)", () => {
  it("3 browsers × 3 visits and 12 bots' visits: every one redirected; clicks 9, unique 3, bots 12 by name, on the link and its account", async () => {
    const site = await createSite(database);
    const link = await site.link();
    const side = await startVisitor(database);
    const bots: Array<{ method: string; headers: Record<string, string> }> = [
      ...Array.from({ length: 4 }, () => ({ method: "GET", headers: { "user-agent": GOOGLEBOT } })),
      ...Array.from({ length: 3 }, () => ({ method: "GET", headers: { "user-agent": SLACKBOT } })),
      ...Array.from({ length: 2 }, () => ({ method: "HEAD", headers: { "user-agent": BROWSER } })),
      ...Array.from({ length: 2 }, () => ({ method: "GET", headers: { "user-agent": "" } })),
      { method: "GET", headers: { "user-agent": BROWSER, "sec-purpose": "prefetch" } },
    ];
    try {
      for (const agent of [BROWSER, IPHONE, FIREFOX]) {
        for (let i = 0; i < 3; i++) expect((await side.visit(`/${link.alias}`, { host: site.host, headers: { "user-agent": agent } })).status).toBe(302);
      }
      for (const bot of bots) expect((await side.visit(`/${link.alias}`, { host: site.host, ...bot })).status).toBe(302);
      await side.app.flushClicks();
    } finally {
      await side.close();
    }
    const today = new Date().toISOString().slice(0, 10);
    const stats = await rollups(link.id);
    expect(stats.get(`clicks|${today}|`)).toBe(9);
    expect(stats.get(`unique|${today}|`)).toBe(3);
    expect(sumOf(stats, "bots")).toBe(12);
    expect(sumOf(stats, "bots_hour")).toBe(12);
    const names = new Map<string, number>();
    for (const bot of bots) {
      const name = expectedBot(bot.method, bot.headers);
      expect(name, JSON.stringify(bot)).not.toBeNull();
      names.set(name as string, (names.get(name as string) ?? 0) + 1);
    }
    for (const [name, n] of names) expect(stats.get(`bots|${today}|${name}`), name).toBe(n);
    expect(await counterOf(link.id)).toBe(9);
    expect(await rawClicks(link.id)).toBe(9);
    const account = await queryRows<{ k: string; n: string }>(
      database.db,
      sql`select dimension || '|' || value as k, count::text as n from account_stats_daily where workspace_id = ${site.user.workspaceId} and dimension in ('clicks', 'unique', 'bots')
          union all
          select 'link|' || link_id, count::text from account_link_daily where workspace_id = ${site.user.workspaceId}`,
    );
    const byKey = new Map(account.map((r) => [r.k, Number(r.n)]));
    expect(byKey.get("clicks|")).toBe(9);
    expect(byKey.get("unique|")).toBe(3);
    expect(byKey.get(`link|${link.id}`)).toBe(9);
    expect([...byKey].filter(([k]) => k.startsWith("bots|")).reduce((n, [, v]) => n + v, 0)).toBe(12);
  });

  it.each([
    ["the same address and agent", 1, ["203.0.113.9", "203.0.113.9"]],
    ["two IPv4 addresses", 2, ["203.0.113.9", "203.0.113.10"]],
    ["two addresses of one IPv6 /64", 1, ["2001:db8:1:2::1", "2001:db8:1:2:ffff::9"]],
    ["two IPv6 /64s", 2, ["2001:db8:1:2::1", "2001:db8:1:3::1"]],
    ["an IPv4-mapped IPv6 address and its IPv4 address", 1, ["::ffff:203.0.113.9", "203.0.113.9"]],
  ] as const)("a visitor is a client group (CONTRACT §15) with an agent: %s → %i unique", async (_, expected, addresses) => {
    const site = await createSite(database);
    const link = await site.link();
    const side = await startVisitor(database);
    try {
      for (const address of addresses) await side.visit(`/${link.alias}`, { host: site.host, headers: { "x-forwarded-for": address } });
      await side.app.flushClicks();
    } finally {
      await side.close();
    }
    expect(sumOf(await rollups(link.id), "unique")).toBe(expected);
    expect(sumOf(await rollups(link.id), "clicks")).toBe(addresses.length);
  });

  it("expiration_clicks ignores bots: they are sent on and never admitted; person N+1 is expired, an orphan visit", async () => {
    const site = await createSite(database);
    const link = await site.link({ url: "https://limited.example/", expiration_clicks: 3, expiration_url: "https://sold-out.example/" });
    const side = await startVisitor(database);
    const locations: string[] = [];
    const go = async (headers: Record<string, string> = {}) => {
      const res = await side.visit(`/${link.alias}`, { host: site.host, headers });
      locations.push(String(res.headers.location));
    };
    try {
      for (let i = 0; i < 5; i++) await go({ "user-agent": GOOGLEBOT });
      for (let i = 0; i < 4; i++) await go({ "x-forwarded-for": `198.51.100.${i}` });
      await side.app.flushClicks();
    } finally {
      await side.close();
    }
    expect(locations).toEqual([...Array<string>(5).fill("https://limited.example/"), ...Array<string>(3).fill("https://limited.example/"), "https://sold-out.example/"]);
    expect(await counterOf(link.id)).toBe(3);
    const stats = await rollups(link.id);
    expect(sumOf(stats, "clicks")).toBe(3);
    expect(sumOf(stats, "unique")).toBe(3);
    expect(sumOf(stats, "bots")).toBe(5);
    expect(await orphans(site.domainId)).toEqual(["expired||1"]);
  });

  it("webhook link.clicked counts people only", async () => {
    const site = await createSite(database);
    await database.db.insert(webhooks).values({ workspaceId: site.user.workspaceId, url: "https://hooks.example/", events: ["link.clicked"], secret: "s" });
    const link = await site.link();
    const side = await startVisitor(database);
    try {
      await side.visit(`/${link.alias}`, { host: site.host });
      await side.visit(`/${link.alias}`, { host: site.host, headers: { "user-agent": IPHONE } });
      for (let i = 0; i < 3; i++) await side.visit(`/${link.alias}`, { host: site.host, headers: { "user-agent": SLACKBOT } });
      await side.visit(`/${link.alias}`, { host: site.host, method: "HEAD" });
      await side.app.flushClicks();
    } finally {
      await side.close();
    }
    const events = await queryRows<{ data: string }>(database.db, sql`select data::text as data from webhook_events where workspace_id = ${site.user.workspaceId} and type = 'link.clicked'`);
    const clicks = events.map((e) => JSON.parse(e.data) as { link_id: number; clicks: number });
    expect(clicks.reduce((n, e) => n + e.clicks, 0)).toBe(2);
    expect(clicks.every((e) => e.link_id === link.id)).toBe(true);
  });
});

describe("unique visitors under concurrency", () => {
  it("two visitor sides (processes on Postgres), 300 concurrent visits of 50 visitors: unique is exactly 50", async () => {
    const site = await createSite(database);
    const link = await site.link();
    let sides: [Side, Side];
    if (testDriver() === "postgres") {
      const url = database.url as string;
      sides = await Promise.all([startProcess(url, { TRUST_PROXY: "loopback" }), startProcess(url, { TRUST_PROXY: "loopback" })]);
    } else {
      const a = await startVisitor(database);
      const b = await startVisitor(database);
      sides = [
        { port: a.port, stop: () => a.close() },
        { port: b.port, stop: () => b.close() },
      ];
    }
    const [a, b] = sides;
    try {
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          httpRequest(i % 2 ? a.port : b.port, `/${link.alias}`, { host: site.host, headers: { "x-forwarded-for": `192.0.2.${i % 50}`, "user-agent": i % 7 ? BROWSER : IPHONE } }),
        ),
      );
      expect(results.every((r) => r.status === 302)).toBe(true);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    // 50 addresses, and each address with one or two agents (i % 7 picks the second for some visits).
    const visitors = new Set(Array.from({ length: 300 }, (_, i) => `${i % 50}|${i % 7 ? 0 : 1}`));
    const stats = await rollups(link.id);
    expect(sumOf(stats, "clicks")).toBe(300);
    expect(sumOf(stats, "unique")).toBe(visitors.size);
    // Stored once each: in the link's sets (no bucket is full with so few), none as rows.
    const [stored] = await queryRows<{ sets: string; rows: string }>(
      database.db,
      sql`select (select coalesce(sum(cardinality(visitors)), 0) from link_visitor_sets where link_id = ${link.id})::text as sets, (select count(*) from link_visitors where link_id = ${link.id})::text as rows`,
    );
    expect([Number(stored?.sets), Number(stored?.rows)]).toEqual([visitors.size, 0]);
  });
});

describe("a visitor's days", () => {
  it("a visitor across midnight counts on both days; after the day and its grace the salt and the visitors are gone", async () => {
    const site = await createSite(database);
    const link = await site.link();
    let clock = new Date("2040-03-01T23:59:30Z");
    const side = await startVisitor(database, {}, () => clock);
    try {
      await side.visit(`/${link.alias}`, { host: site.host });
      await side.visit(`/${link.alias}`, { host: site.host });
      clock = new Date("2040-03-02T00:00:30Z");
      await side.visit(`/${link.alias}`, { host: site.host });
      await side.app.flushClicks();
      const stats = await rollups(link.id);
      expect(stats.get("unique|2040-03-01|")).toBe(1);
      expect(stats.get("unique|2040-03-02|")).toBe(1);
      expect(stats.get("clicks|2040-03-01|")).toBe(2);
      const salts = await queryRows<{ day: string }>(database.db, sql`select day::text as day from visitor_salts where day >= '2040-03-01' order by 1`);
      expect(salts.map((s) => s.day)).toEqual(["2040-03-01", "2040-03-02"]);
      // Two rows, one a day, under two salts: the same person is not the same hash on the next day.
      const stored = await queryRows<{ visitor: string }>(database.db, sql`select v::text as visitor from link_visitor_sets, unnest(visitors) as v where link_id = ${link.id}`);
      expect(stored.length).toBe(2);
      expect(new Set(stored.map((r) => r.visitor)).size).toBe(2);

      // The next day's first visit, past the grace: its salt is made, and the days over are deleted with it.
      clock = new Date("2040-03-03T00:10:01Z");
      await side.visit(`/${link.alias}`, { host: site.host });
      await side.app.flushClicks();
    } finally {
      await side.close();
    }
    const left = await queryRows<{ day: string }>(database.db, sql`select day::text as day from visitor_salts where day >= '2040-03-01' order by 1`);
    expect(left.map((s) => s.day)).toEqual(["2040-03-03"]);
    const visitorDays = await queryRows<{ day: string }>(database.db, sql`select distinct day::text as day from link_visitor_sets where link_id = ${link.id}`);
    expect(visitorDays.map((r) => r.day)).toEqual(["2040-03-03"]);
    // The counts stay.
    const stats = await rollups(link.id);
    expect([stats.get("unique|2040-03-01|"), stats.get("unique|2040-03-02|"), stats.get("unique|2040-03-03|")]).toEqual([1, 1, 1]);
    // And the worker's upkeep (core's dropPastVisitorDays) deletes the last one once it is over.
    expect(await dropPastVisitorDays(database.db, new Date("2040-03-04T00:10:00Z"))).toContain("2040-03-03");
    expect(await queryRows(database.db, sql`select 1 from link_visitor_sets where link_id = ${link.id} union all select 1 from link_visitors where link_id = ${link.id}`)).toEqual([]);
  });
});

describe("orphan visits (CONTRACT §21)", () => {
  it("index, unknown aliases (named), other paths, disabled and expired links per domain; bots under bots only; never clicks", async () => {
    const site = await createSite(database, { index_page: "https://home.example/" });
    const disabled = await site.link({ disabled: 1 });
    const limited = await site.link({ expiration_clicks: 1 });
    const side = await startVisitor(database);
    try {
      const visit = (path: string, headers: Record<string, string> = {}, method = "GET") => side.visit(path, { host: site.host, headers, method });
      expect((await visit("/")).status).toBe(302);
      expect((await visit("/")).status).toBe(302);
      expect((await visit("/", { "user-agent": GOOGLEBOT })).status).toBe(302);
      expect((await visit("/no-such-alias")).status).toBe(404);
      expect((await visit("/no-such-alias")).status).toBe(404);
      expect((await visit("/other_one")).status).toBe(404);
      expect((await visit("/no-such-alias", {}, "HEAD")).status).toBe(404);
      expect((await visit("/favicon.ico")).status).toBe(404);
      expect((await visit(`/${disabled.alias}`)).status).toBe(404);
      expect((await visit(`/${limited.alias}`)).status).toBe(302);
      expect((await visit(`/${limited.alias}`)).status).toBe(410);
      expect((await visit(`/${limited.alias}`, { "user-agent": SLACKBOT })).status).toBe(410);
      // The service's answer for a host that is no domain: nothing to count it under.
      expect((await side.visit("/x", { host: "unknown-host.example" })).status).toBe(404);
      await side.app.flushClicks();
    } finally {
      await side.close();
    }
    expect(await orphans(site.domainId)).toEqual(["alias|no-such-alias|2", "alias|other_one|1", "bots||3", "disabled||1", "expired||1", "index||2", "not_found||4"].sort());
    expect(await counterOf(limited.id)).toBe(1);
    expect(await counterOf(disabled.id)).toBe(0);
  });
});

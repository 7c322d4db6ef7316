import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { clicks, linkStatsDaily, links, MIGRATIONS_FOLDER, queryRows, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildStatsReport, createDomain, createLink, CoreError, deleteLink, findStatsLink, getStats, recordClicks, type Click, type CreateLinkInput, type GetStatsInput } from "../src/index.ts";
import { createTestUser, openTestDb, testClick as click, unique, validationFields as fieldsOf, type TestUser } from "../src/testing/index.ts";

let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

/** "Today" for every test: 2026-06-30, so the default range is 2026-06-01 … 2026-06-30. */
const NOW = new Date("2026-06-30T15:00:00Z");

async function owner(): Promise<TestUser & { link(input?: Partial<CreateLinkInput>): Promise<number> }> {
  const user = await createTestUser(database.db, { now: () => NOW });
  const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique()}.example` } });
  return {
    ...user,
    async link(input = {}) {
      const link = await createLink({ ctx: user.ctx, input: { url: "https://dest.example/", domain_id: domain.id, ...input } as CreateLinkInput });
      return link.id;
    },
  };
}

async function stats(user: TestUser, input: Omit<GetStatsInput, "link_id"> & { link_id: number }) {
  return getStats({ ctx: user.ctx, input });
}

/** The rollups of one link, as sorted plain rows. */
async function rollupsOf(linkId: number) {
  const rows = await database.db.select().from(linkStatsDaily).where(eq(linkStatsDaily.linkId, linkId));
  return rows.map((r) => `${r.dimension}|${r.day}|${r.value}|${Number(r.count)}`).sort();
}

describe("rollups written by recordClicks", () => {
  it("counts every click of a batch once per dimension, in its UTC day and hour, with '' for unknown values", async () => {
    const user = await owner();
    const id = await user.link();
    await recordClicks(database.db, [
      click(id, "2026-06-10T23:59:59.999Z", { country: "US", platform: "iOS", browser: "Safari", device: "mobile", language: "en", referrer: "t.co" }),
      click(id, "2026-06-10T23:10:00Z", { country: "US", platform: "Windows", browser: "Chrome", device: "desktop", language: "en" }),
      click(id, "2026-06-11T00:00:00Z", { country: "DE", counted: true }),
    ]);
    expect(await rollupsOf(id)).toEqual(
      [
        "browser|2026-06-10|Chrome|1",
        "browser|2026-06-10|Safari|1",
        "browser|2026-06-11||1",
        "clicks_hour|2026-06-10|23|2",
        "clicks_hour|2026-06-11|00|1",
        "clicks|2026-06-10||2",
        "clicks|2026-06-11||1",
        "country|2026-06-10|US|2",
        "country|2026-06-11|DE|1",
        "device|2026-06-10|desktop|1",
        "device|2026-06-10|mobile|1",
        "device|2026-06-11||1",
        "language|2026-06-10|en|2",
        "language|2026-06-11||1",
        "platform|2026-06-10|Windows|1",
        "platform|2026-06-10|iOS|1",
        "platform|2026-06-11||1",
        "referrer|2026-06-10||1",
        "referrer|2026-06-10|t.co|1",
        "referrer|2026-06-11||1",
      ].sort(),
    );
    // The counter skips the click already counted; the rollups count every recorded click.
    const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, id));
    expect(row?.clicks).toBe(2);
  });

  it("a row that stands for several identical clicks counts as that many: stored count, rollups, counter", async () => {
    const user = await owner();
    const id = await user.link();
    await recordClicks(database.db, [
      { ...click(id, "2026-06-12T08:15:00Z", { country: "FR", referrer: "t.co" }), count: 40 },
      click(id, "2026-06-12T08:15:00Z", { country: "FR", referrer: "t.co" }),
      { ...click(id, "2026-06-12T09:00:00Z", { country: "IT", counted: true }), count: 5 },
    ]);
    const stored = await queryRows<{ count: unknown }>(database.db, sql`select count from clicks where link_id = ${id} order by count`);
    expect(stored.map((r) => Number(r.count))).toEqual([1, 5, 40]);
    const rollups = await rollupsOf(id);
    expect(rollups).toContain("clicks|2026-06-12||46");
    expect(rollups).toContain("clicks_hour|2026-06-12|08|41");
    expect(rollups).toContain("country|2026-06-12|FR|41");
    expect(rollups).toContain("country|2026-06-12|IT|5");
    expect(rollups).toContain("referrer|2026-06-12|t.co|41");
    // The 5 already counted (a click-limited link's admissions) are not added again.
    const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, id));
    expect(row?.clicks).toBe(41);
  });

  it("adds later batches to the same rows, and concurrent batches lose nothing", async () => {
    const user = await owner();
    const a = await user.link();
    const b = await user.link();
    const batch = (n: number) => Array.from({ length: n }, (_, i) => click(i % 2 ? a : b, `2026-06-20T${String(i % 24).padStart(2, "0")}:30:00Z`, { country: i % 3 ? "FR" : "IT" }));
    await Promise.all([recordClicks(database.db, batch(100)), recordClicks(database.db, batch(60)), recordClicks(database.db, batch(40))]);
    for (const id of [a, b]) {
      const [daily] = await database.db
        .select()
        .from(linkStatsDaily)
        .where(sql`${linkStatsDaily.linkId} = ${id} and ${linkStatsDaily.dimension} = 'clicks'`);
      expect(Number(daily?.count)).toBe(100);
      const [raw] = await queryRows<{ n: unknown }>(database.db, sql`select count(*) as n from clicks where link_id = ${id}`);
      expect(Number(raw?.n)).toBe(100);
    }
  });

  it("drops the clicks of a link deleted meanwhile, and deleting a link deletes its rollups", async () => {
    const user = await owner();
    const id = await user.link();
    await recordClicks(database.db, [click(id, "2026-06-05T10:00:00Z")]);
    expect(await rollupsOf(id)).toHaveLength(8);
    await deleteLink({ ctx: user.ctx, id });
    await recordClicks(database.db, [click(id, "2026-06-05T11:00:00Z")]);
    expect(await rollupsOf(id)).toEqual([]);
    expect(await database.db.select().from(clicks).where(eq(clicks.linkId, id))).toEqual([]);
  });

  it("the migration's backfill rebuilds exactly the rollups recordClicks kept", async () => {
    const user = await owner();
    const id = await user.link();
    await recordClicks(database.db, [
      click(id, "2026-05-01T08:00:00Z", { country: "BR", referrer: "x".repeat(300) }),
      click(id, "2026-05-02T09:00:00Z", { language: "pt", browser: "Firefox" }),
      // Cut at 255 characters (code points, as Postgres's left() counts them), not UTF-16 units.
      click(id, "2026-05-02T23:59:59.999Z", { referrer: "😀".repeat(300), platform: "" }),
    ]);
    const source = readFileSync(join(MIGRATIONS_FOLDER, "0002_stats_rollups.sql"), "utf8");
    const backfill = source.split("--> statement-breakpoint").find((s) => s.includes("INSERT INTO"));
    expect(backfill).toBeDefined();
    const snapshot = async () =>
      (await queryRows<Record<string, unknown>>(database.db, sql`select link_id, dimension, day::text, value, count::text from link_stats_daily order by 1, 2, 3, 4`)).map((r) => JSON.stringify(r));
    const kept = await snapshot();
    expect(kept.length).toBeGreaterThan(0);
    // Rebuild inside a transaction that is rolled back, so the other tests' rows stay as they were.
    const rebuilt = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`delete from link_stats_daily`);
        // The backfill ran when every row was one click: spread the grouped rows of later tests back out.
        await tx.execute(sql`
          insert into clicks (link_id, created_at, country, platform, browser, device, language, referrer)
          select link_id, created_at, country, platform, browser, device, language, referrer from clicks, generate_series(2, count)`);
        await tx.execute(sql`update clicks set count = 1 where count > 1`);
        await tx.execute(sql.raw(backfill ?? ""));
        const rows = (await queryRows<Record<string, unknown>>(tx, sql`select link_id, dimension, day::text, value, count::text from link_stats_daily order by 1, 2, 3, 4`)).map((r) =>
          JSON.stringify(r),
        );
        throw Object.assign(new Error("rollback"), { rows });
      })
      .catch((e: { rows?: string[] }) => e.rows);
    expect(rebuilt).toEqual(kept);
  });
});

describe("getStats (CONTRACT §8)", () => {
  it("clicks: a row a day over the last 30 days by default, days without clicks as 0, the whole series in one page", async () => {
    const user = await owner();
    const id = await user.link();
    await recordClicks(database.db, [
      click(id, "2026-05-31T23:59:59Z"),
      click(id, "2026-06-01T00:00:00Z"),
      click(id, "2026-06-01T12:00:00Z"),
      click(id, "2026-06-30T14:59:00Z"),
      click(id, "2026-07-01T00:00:00Z"),
    ]);
    const page = await stats(user, { link_id: id, name: "clicks" });
    expect(page.range).toEqual({ from: "2026-06-01", to: "2026-06-30", days: 30 });
    expect(page.data).toHaveLength(30);
    expect(page.data[0]).toEqual({ value: "2026-06-01", count: 2, unique: 0, bots: 0 });
    expect(page.data[1]).toEqual({ value: "2026-06-02", count: 0, unique: 0, bots: 0 });
    expect(page.data[29]).toEqual({ value: "2026-06-30", count: 1, unique: 0, bots: 0 });
    expect(page).toMatchObject({ total: 30, page: 1, perPage: 30 });

    const custom = await stats(user, { link_id: id, name: "clicks", from: "2026-05-31", to: "2026-07-01" });
    expect(custom.data.map((r) => r.count).reduce((a, b) => a + b)).toBe(5);
    expect(custom.data.at(-1)).toEqual({ value: "2026-07-01", count: 1, unique: 0, bots: 0 });
  });

  it("clicks_hour: a row an hour as YYYY-MM-DDTHH:00Z, hours without clicks as 0", async () => {
    const user = await owner();
    const id = await user.link();
    await recordClicks(database.db, [click(id, "2026-06-02T05:59:00Z"), click(id, "2026-06-02T05:00:00Z"), click(id, "2026-06-03T23:30:00Z")]);
    const page = await stats(user, { link_id: id, name: "clicks_hour", from: "2026-06-02", to: "2026-06-03" });
    expect(page.data).toHaveLength(48);
    expect(page.data[0]).toEqual({ value: "2026-06-02T00:00Z", count: 0, bots: 0 });
    expect(page.data[5]).toEqual({ value: "2026-06-02T05:00Z", count: 2, bots: 0 });
    expect(page.data[47]).toEqual({ value: "2026-06-03T23:00Z", count: 1, bots: 0 });
    expect(page.data.filter((r) => r.count > 0)).toHaveLength(2);
  });

  it("dimensions: sorted by count descending, ties by value, unknown values as Unknown", async () => {
    const user = await owner();
    const id = await user.link();
    const at = "2026-06-15T10:00:00Z";
    await recordClicks(database.db, [
      click(id, at, { country: "US" }),
      click(id, at, { country: "US" }),
      click(id, at, { country: "US" }),
      click(id, at, { country: "DE" }),
      click(id, at, { country: "AT" }),
      click(id, at, { country: null }),
      click(id, at, { country: null }),
      click(id, "2026-04-01T10:00:00Z", { country: "JP" }),
    ]);
    const page = await stats(user, { link_id: id, name: "country" });
    expect(page.data).toEqual([
      { value: "US", count: 3 },
      { value: "Unknown", count: 2 },
      { value: "AT", count: 1 },
      { value: "DE", count: 1 },
    ]);
    const referrers = await stats(user, { link_id: id, name: "referrer" });
    expect(referrers.data).toEqual([{ value: "Unknown", count: 7 }]);
  });

  it("pages a series when per_page is given, with every row once", async () => {
    const user = await owner();
    const id = await user.link();
    await recordClicks(
      database.db,
      Array.from({ length: 12 }, (_, i) => click(id, "2026-06-15T10:00:00Z", { referrer: `site${String(i).padStart(2, "0")}.example` })),
    );
    const first = await stats(user, { link_id: id, name: "referrer", per_page: 10 });
    const second = await stats(user, { link_id: id, name: "referrer", per_page: 10, page: 2 });
    const third = await stats(user, { link_id: id, name: "referrer", per_page: 10, page: 3 });
    expect(first).toMatchObject({ total: 12, perPage: 10, page: 1 });
    expect(first.data).toHaveLength(10);
    expect(second.data.map((r) => r.value)).toEqual(["site10.example", "site11.example"]);
    expect(third.data).toEqual([]);
  });

  it("another user's link is NOT_FOUND, exactly like a missing one", async () => {
    const alice = await owner();
    const bob = await owner();
    const id = await alice.link();
    const missing = await stats(bob, { link_id: 2_000_000_000, name: "clicks" }).catch((e: CoreError) => e);
    const foreign = await stats(bob, { link_id: id, name: "clicks" }).catch((e: CoreError) => e);
    expect(foreign).toBeInstanceOf(CoreError);
    expect((foreign as CoreError).code).toBe("NOT_FOUND");
    expect((foreign as CoreError).message).toBe((missing as CoreError).message);
  });

  it("rejects a bad name, bad dates, from after to and ranges too long, every field at once", async () => {
    const user = await owner();
    const id = await user.link();
    expect(await fieldsOf(stats(user, { link_id: id, name: "os" as never, from: "2026-02-30", to: "yesterday" }))).toEqual({
      name: ["The name must be one of clicks, clicks_hour, country, platform, browser, device, language, referrer, bots, variant."],
      from: ["The from date must be a date in the format YYYY-MM-DD."],
      to: ["The to date must be a date in the format YYYY-MM-DD."],
    });
    expect(await fieldsOf(stats(user, { link_id: id, name: undefined as never }))).toHaveProperty("name");
    expect(await fieldsOf(stats(user, { link_id: id, name: "clicks", from: "2026-06-10", to: "2026-06-09" }))).toEqual({
      from: ["The from date must be a date before or equal to the to date."],
    });
    expect(await fieldsOf(stats(user, { link_id: id, name: "clicks_hour", from: "2026-05-30", to: "2026-06-30" }))).toEqual({
      from: ["The range of clicks_hour may span at most 31 days."],
    });
    expect(await fieldsOf(stats(user, { link_id: id, name: "clicks", from: "2016-06-22", to: "2026-06-30" }))).toEqual({
      from: ["The range of clicks may span at most 3660 days."],
    });
    expect(await fieldsOf(stats(user, { link_id: id, name: "clicks", per_page: 7 as never }))).toHaveProperty("per_page");
    // The longest ranges allowed.
    expect((await stats(user, { link_id: id, name: "clicks_hour", from: "2026-05-31", to: "2026-06-30" })).data).toHaveLength(31 * 24);
    expect((await stats(user, { link_id: id, name: "clicks", from: "2016-06-23", to: "2026-06-30" })).data).toHaveLength(3660);
  });

  it.each([
    ["country", "2000-01-01", "2099-12-31"],
    ["referrer", "0001-01-01", "9999-12-31"],
    ["platform", "1970-01-01", "2026-06-30"],
    ["browser", "2026-06-30", "9999-12-31"],
    ["device", "0001-01-01", "0001-01-01"],
    ["language", "2000-02-29", "2400-02-29"],
  ] as const)("%s takes any range (CONTRACT §15): %s … %s", async (name, from, to) => {
    const user = await owner();
    const id = await user.link();
    await recordClicks(database.db, [click(id, "2026-06-29T07:15:00Z", { country: "SE", referrer: "a.example", platform: "iOS", browser: "Safari", device: "mobile", language: "sv" })]);
    const page = await stats(user, { link_id: id, name, from, to });
    expect(page.range).toMatchObject({ from, to });
    const inRange = from <= "2026-06-29" && to >= "2026-06-29";
    expect(page.data.reduce((n, r) => n + r.count, 0)).toBe(inRange ? 1 : 0);
  });

  it.each([
    ["year 0 (Postgres has none)", { from: "0000-01-01", to: "0001-01-31" }, "from"],
    ["year 0 as to", { from: "0001-01-01", to: "0000-12-31" }, "to"],
    ["a negative year", { from: "-001-01-01" }, "from"],
    ["five digits", { to: "10000-01-01" }, "to"],
  ] as const)("refuses %s as a 422, never a database error", async (_name, range, field) => {
    const user = await owner();
    const id = await user.link();
    expect(Object.keys(await fieldsOf(stats(user, { link_id: id, name: "country", ...range })))).toEqual([field]);
  });
});

describe("the public page's report", () => {
  it("holds every series, clicks_hour only for ranges of at most 31 days, and the clicks by hour of day", async () => {
    const user = await owner();
    const id = await user.link({ title: "Report" });
    await recordClicks(database.db, [
      click(id, "2026-06-29T07:15:00Z", { country: "SE", browser: "Firefox" }),
      click(id, "2026-06-30T07:45:00Z", { country: "SE", browser: "Chrome" }),
      click(id, "2026-03-01T22:00:00Z", { country: "NO" }),
    ]);
    const report = await buildStatsReport({ ctx: { db: database.db, now: () => NOW }, linkId: id, input: {} });
    expect(report.total).toBe(2);
    expect(report.series.clicks).toHaveLength(30);
    expect(report.series.clicks_hour).toHaveLength(30 * 24);
    expect(report.series.country).toEqual([{ value: "SE", count: 2 }]);
    expect(report.series.browser).toEqual([
      { value: "Chrome", count: 1 },
      { value: "Firefox", count: 1 },
    ]);
    expect(report.hourOfDay[7]).toBe(2);
    expect(report.hourOfDay.reduce((a, b) => a + b)).toBe(2);

    const long = await buildStatsReport({ ctx: { db: database.db, now: () => NOW }, linkId: id, input: { from: "2026-01-01", to: "2026-06-30" } });
    expect(long.total).toBe(3);
    expect(long.series.clicks_hour).toBeNull();
    expect(long.hourOfDay[22]).toBe(1);

    // Any range: the value series and the total; no day rows past 3,660 days.
    const century = await buildStatsReport({ ctx: { db: database.db, now: () => NOW }, linkId: id, input: { from: "2000-01-01", to: "2099-12-31" } });
    expect(century.total).toBe(3);
    expect(century.series.clicks).toBeNull();
    expect(century.series.clicks_hour).toBeNull();
    expect(century.series.country).toEqual([
      { value: "SE", count: 2 },
      { value: "NO", count: 1 },
    ]);
    const decade = await buildStatsReport({ ctx: { db: database.db, now: () => NOW }, linkId: id, input: { from: "2016-06-23", to: "2026-06-30" } });
    expect(decade.series.clicks).toHaveLength(3660);

    const found = await findStatsLink({ db: database.db, now: () => NOW }, id);
    expect(found).toMatchObject({ id, workspaceId: user.workspaceId, title: "Report", privacy: 0, privacyPasswordHash: null });
    expect(await findStatsLink({ db: database.db, now: () => NOW }, 2_000_000_000)).toBeNull();
  });

  it("holds at most the top 100 values of each series, the rest added up as Other (CONTRACT §15)", async () => {
    const user = await owner();
    const id = await user.link();
    // 250 referrers: r000 has 250 clicks, r001 249, …, r249 1; 3 clicks from one country.
    const visits: Click[] = [];
    for (let i = 0; i < 250; i++) visits.push({ ...click(id, "2026-06-20T10:00:00Z", { referrer: `r${String(i).padStart(3, "0")}.example` }), count: 250 - i });
    visits.push(click(id, "2026-06-21T10:00:00Z", { country: "SE" }), click(id, "2026-06-21T10:00:00Z", { country: "SE" }), click(id, "2026-06-21T10:00:00Z", { country: "NO" }));
    await recordClicks(database.db, visits);
    const report = await buildStatsReport({ ctx: { db: database.db, now: () => NOW }, linkId: id, input: {} });
    const referrers = report.series.referrer ?? [];
    expect(referrers).toHaveLength(101);
    const named = referrers.filter((r) => r.value !== "Unknown" && r.value !== "Other");
    expect(referrers.at(-1)?.value).toBe("Other");
    const shown = referrers.slice(0, 100).reduce((n, r) => n + r.count, 0);
    expect(shown + (referrers.at(-1)?.count ?? 0)).toBe(report.total);
    expect(report.others.referrer).toEqual({ values: 251 - 100, count: report.total - shown });
    expect(named[0]).toEqual({ value: "r000.example", count: 250 });
    // Fewer than 100 values: no Other row.
    expect(report.series.country).toEqual([
      { value: "Unknown", count: report.total - 3 },
      { value: "SE", count: 2 },
      { value: "NO", count: 1 },
    ]);
    expect(report.others.country).toBeNull();
  });
});

import { sql } from "drizzle-orm";
import { queryRows } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, trpcClient, trpcFailure as failure, type TestApi } from "./helpers.ts";

/**
 * CONTRACT §21's read side: the summary, the new columns of the series, bots by name, account-wide
 * statistics and a domain's orphan visits, read over rollup rows written here directly (the write
 * side has its own tests), through REST, CSV and tRPC.
 */
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});

type Owner = Awaited<ReturnType<typeof createOwner>>;
type Rollup = [dimension: string, day: string, value: string, count: number];

async function newLink(owner: Owner, alias?: string): Promise<{ id: number; short_url: string }> {
  const res = await api.call(owner.user, "POST", "/api/v1/links", { url: "https://dest.example/", domain_id: String(owner.domain.id), ...(alias ? { alias } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** Rollup rows as the write side leaves them; an account's `link` rows (value: the link id) go to `account_link_daily`. */
async function insertRollups(table: "link_stats_daily" | "account_stats_daily" | "domain_visits_daily", id: number, rows: Rollup[]): Promise<void> {
  const key = sql.raw(table === "link_stats_daily" ? "link_id, dimension" : table === "account_stats_daily" ? "workspace_id, dimension" : "domain_id, kind");
  for (const [dimension, day, value, count] of rows) {
    if (table === "account_stats_daily" && dimension === "link") {
      await queryRows(api.database.db, sql`insert into account_link_daily (workspace_id, day, link_id, count) values (${id}, ${day}::date, ${Number(value)}, ${count})`);
      continue;
    }
    await queryRows(api.database.db, sql`insert into ${sql.raw(table)} (${key}, day, value, count) values (${id}, ${dimension}, ${day}::date, ${value}, ${count})`);
  }
}

async function insertRawClick(linkId: number, at: string): Promise<void> {
  await queryRows(api.database.db, sql`insert into clicks (link_id, created_at) values (${linkId}, ${at}::timestamptz)`);
}

const RANGE = "from=2026-03-01&to=2026-03-03";

/** A link with two days of humans, uniques and bots in the rollups, and raw clicks for its first and last hour. */
async function linkWithCounts(owner: Owner) {
  const link = await newLink(owner);
  await insertRollups("link_stats_daily", link.id, [
    ["clicks", "2026-03-01", "", 5],
    ["clicks", "2026-03-03", "", 2],
    ["unique", "2026-03-01", "", 3],
    ["unique", "2026-03-03", "", 2],
    ["bots", "2026-03-01", "Googlebot", 4],
    ["bots", "2026-03-02", "Slackbot", 1],
    ["bots", "2026-03-03", "Googlebot", 2],
    ["clicks_hour", "2026-03-01", "09", 5],
    ["clicks_hour", "2026-03-03", "17", 2],
    ["bots_hour", "2026-03-01", "09", 4],
    ["bots_hour", "2026-03-02", "23", 1],
    ["bots_hour", "2026-03-03", "17", 2],
    ["clicks", "2026-02-28", "", 100],
    ["clicks_hour", "2026-02-28", "12", 100],
  ]);
  await insertRawClick(link.id, "2026-03-01T09:12:34.567Z");
  await insertRawClick(link.id, "2026-03-03T17:45:00.001Z");
  return link;
}

describe("GET /api/v1/stats/{id}: the summary and the new columns (CONTRACT §21)", () => {
  it("name=summary: humans, the sum of the days' unique visitors, bots, and the exact first and last click from the raw clicks", async () => {
    const owner = await createOwner(api);
    const link = await linkWithCounts(owner);
    const res = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=summary&${RANGE}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      data: { clicks: 7, unique_visitors: 5, bots: 7, imported_clicks: 0, first_click_at: "2026-03-01T09:12:34.567Z", last_click_at: "2026-03-03T17:45:00.001Z" },
      status: 200,
    });
    const client = trpcClient(api.app, owner.user.apiKey);
    expect(await client.stats.summary.query({ link_id: link.id, from: "2026-03-01", to: "2026-03-03" })).toEqual(res.body.data);
  });

  it("first and last fall back to the start of the rollups' hour once the raw clicks are gone (CLICK_RETENTION_DAYS); none without clicks", async () => {
    const owner = await createOwner(api);
    const link = await newLink(owner);
    await insertRollups("link_stats_daily", link.id, [
      ["clicks", "2026-03-01", "", 1],
      ["clicks_hour", "2026-03-01", "04", 1],
      ["clicks", "2026-03-02", "", 1],
      ["clicks_hour", "2026-03-02", "22", 1],
    ]);
    await insertRawClick(link.id, "2026-03-02T22:30:00Z");
    const res = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=summary&${RANGE}`);
    expect(res.body.data).toEqual({ clicks: 2, unique_visitors: 0, bots: 0, imported_clicks: 0, first_click_at: "2026-03-01T04:00:00.000Z", last_click_at: "2026-03-02T22:30:00.000Z" });
    const empty = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=summary&from=2026-04-01&to=2026-04-30`);
    expect(empty.body.data).toEqual({ clicks: 0, unique_visitors: 0, bots: 0, imported_clicks: 0, first_click_at: null, last_click_at: null });
  });

  it("clicks rows carry unique and bots, every day with zeros; clicks_hour rows bots; name=bots ranks bot names", async () => {
    const owner = await createOwner(api);
    const link = await linkWithCounts(owner);
    const daily = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=clicks&${RANGE}`);
    expect(daily.body.data).toEqual([
      { value: "2026-03-01", count: 5, unique: 3, bots: 4 },
      { value: "2026-03-02", count: 0, unique: 0, bots: 1 },
      { value: "2026-03-03", count: 2, unique: 2, bots: 2 },
    ]);
    const hourly = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=clicks_hour&${RANGE}`);
    expect(hourly.body.data).toHaveLength(72);
    expect(hourly.body.data[9]).toEqual({ value: "2026-03-01T09:00Z", count: 5, bots: 4 });
    expect(hourly.body.data[47]).toEqual({ value: "2026-03-02T23:00Z", count: 0, bots: 1 });
    const bots = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=bots&${RANGE}`);
    expect(bots.body.data).toEqual([
      { value: "Googlebot", count: 6 },
      { value: "Slackbot", count: 1 },
    ]);
    const client = trpcClient(api.app, owner.user.apiKey);
    expect((await client.stats.get.query({ link_id: link.id, name: "clicks", from: "2026-03-01", to: "2026-03-03" })).data).toEqual(daily.body.data);
  });

  it("name=bots: the top 100 bot names, then one Other row adding up the rest", async () => {
    const owner = await createOwner(api);
    const link = await newLink(owner);
    await insertRollups(
      "link_stats_daily",
      link.id,
      Array.from({ length: 105 }, (_, i): Rollup => ["bots", "2026-03-02", `Bot${String(i).padStart(3, "0")}`, 200 - i]),
    );
    const res = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=bots&${RANGE}`);
    expect(res.body.data).toHaveLength(101);
    expect(res.body.data[0]).toEqual({ value: "Bot000", count: 200 });
    expect(res.body.data[99]).toEqual({ value: "Bot099", count: 101 });
    expect(res.body.data[100]).toEqual({ value: "Other", count: 100 + 99 + 98 + 97 + 96 });
  });

  it("the CSV carries the new columns: value,count,unique,bots for clicks; value,count,bots for clicks_hour; the summary as one line", async () => {
    const owner = await createOwner(api);
    const link = await linkWithCounts(owner);
    const daily = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=clicks&${RANGE}&format=csv`);
    expect(daily.status).toBe(200);
    expect(String(daily.headers["content-type"])).toMatch(/^text\/csv/);
    expect(daily.body).toBe("value,count,unique,bots\r\n2026-03-01,5,3,4\r\n2026-03-02,0,0,1\r\n2026-03-03,2,2,2\r\n");
    const hourly = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=clicks_hour&${RANGE}&format=csv`);
    expect(String(hourly.body).split("\r\n").slice(0, 2)).toEqual(["value,count,bots", "2026-03-01T00:00Z,0,0"]);
    const bots = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=bots&${RANGE}&format=csv`);
    expect(bots.body).toBe("value,count\r\nGooglebot,6\r\nSlackbot,1\r\n");
    const summary = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=summary&${RANGE}&format=csv`);
    expect(summary.body).toBe("clicks,unique_visitors,bots,imported_clicks,first_click_at,last_click_at\r\n7,5,7,0,2026-03-01T09:12:34.567Z,2026-03-03T17:45:00.001Z\r\n");
  });
});

describe("GET /api/v1/stats: account-wide (CONTRACT §21)", () => {
  async function accountWithCounts() {
    const owner = await createOwner(api);
    const [a, b, gone] = [await newLink(owner, `a${Date.now().toString(36)}`), await newLink(owner), await newLink(owner)];
    const other = await createOwner(api);
    const foreign = await newLink(other);
    const day1 = "2026-03-01";
    const day3 = "2026-03-03";
    await insertRollups("account_stats_daily", owner.user.id, [
      ["clicks", day1, "", 6],
      ["clicks", day3, "", 3],
      ["unique", day1, "", 4],
      ["unique", day3, "", 3],
      ["bots", day1, "Googlebot", 2],
      ["bots", day3, "Bingbot", 1],
      ["country", day1, "DE", 4],
      ["country", day1, "", 2],
      ["country", day3, "US", 3],
      ["link", day1, String(a.id), 4],
      ["link", day1, String(gone.id), 2],
      ["link", day3, String(b.id), 3],
      ["link", day3, String(foreign.id), 50],
      ["clicks", "2026-02-27", "", 9],
    ]);
    await insertRollups("link_stats_daily", a.id, [
      ["clicks", day1, "", 4],
      ["clicks_hour", day1, "08", 4],
    ]);
    await insertRollups("link_stats_daily", b.id, [
      ["clicks", day3, "", 3],
      ["clicks_hour", day3, "20", 3],
    ]);
    await insertRawClick(a.id, `${day1}T08:05:00Z`);
    await insertRawClick(b.id, `${day3}T20:59:59Z`);
    await api.call(owner.user, "DELETE", `/api/v1/links/${gone.id}`);
    return { owner, a, b };
  }

  it("summary, clicks with unique and bots, links (the caller's live links, value = short_url), breakdowns; tRPC stats.account answers the same", async () => {
    const { owner, a, b } = await accountWithCounts();
    const summary = await api.call(owner.user, "GET", `/api/v1/stats?name=summary&${RANGE}`);
    expect(summary.body).toEqual({
      data: { clicks: 9, unique_visitors: 7, bots: 3, imported_clicks: 0, first_click_at: "2026-03-01T08:05:00.000Z", last_click_at: "2026-03-03T20:59:59.000Z" },
      status: 200,
    });
    const clicks = await api.call(owner.user, "GET", `/api/v1/stats?name=clicks&${RANGE}`);
    expect(clicks.body.data).toEqual([
      { value: "2026-03-01", count: 6, unique: 4, bots: 2 },
      { value: "2026-03-02", count: 0, unique: 0, bots: 0 },
      { value: "2026-03-03", count: 3, unique: 3, bots: 1 },
    ]);
    const links = await api.call(owner.user, "GET", `/api/v1/stats?name=links&${RANGE}`);
    expect(links.body.data).toEqual([
      { value: a.short_url, id: a.id, count: 4 },
      { value: b.short_url, id: b.id, count: 3 },
    ]);
    const country = await api.call(owner.user, "GET", `/api/v1/stats?name=country&${RANGE}`);
    expect(country.body.data).toEqual([
      { value: "DE", count: 4 },
      { value: "US", count: 3 },
      { value: "Unknown", count: 2 },
    ]);
    expect(country.body.meta).toMatchObject({ total: 3, current_page: 1 });
    const client = trpcClient(api.app, owner.user.apiKey);
    expect(await client.stats.account.query({ name: "summary", from: "2026-03-01", to: "2026-03-03" })).toEqual(summary.body.data);
    const trpcLinks = await client.stats.account.query({ name: "links", from: "2026-03-01", to: "2026-03-03" });
    expect("data" in trpcLinks && trpcLinks.data).toEqual(links.body.data);
    const csv = await api.call(owner.user, "GET", `/api/v1/stats?name=links&${RANGE}&format=csv`);
    expect(csv.body).toBe(`value,id,count\r\n${a.short_url},${a.id},4\r\n${b.short_url},${b.id},3\r\n`);
    const other = await createOwner(api);
    expect((await api.call(other.user, "GET", `/api/v1/stats?name=summary&${RANGE}`)).body.data).toEqual({
      clicks: 0,
      unique_visitors: 0,
      bots: 0,
      imported_clicks: 0,
      first_click_at: null,
      last_click_at: null,
    });
  });

  it("summary: a first or last day with more than 256 links clicked gives that day's bounds; the links' own moments otherwise", async () => {
    const owner = await createOwner(api);
    const busy: Rollup[] = Array.from({ length: 257 }, (_, i): Rollup => ["link", "2026-03-01", String(2_000_000_000 - i), 1]);
    await insertRollups("account_stats_daily", owner.user.id, [["clicks", "2026-03-01", "", 257], ["clicks", "2026-03-02", "", 1], ["link", "2026-03-02", "2000000000", 1], ...busy]);
    const res = await api.call(owner.user, "GET", `/api/v1/stats?name=summary&${RANGE}`);
    // The first day is too busy to probe: its start. The last day's one link is gone: that day's end.
    expect(res.body.data).toEqual({ clicks: 258, unique_visitors: 0, bots: 0, imported_clicks: 0, first_click_at: "2026-03-01T00:00:00.000Z", last_click_at: "2026-03-02T23:59:59.999Z" });
  });

  it("links: the top 100 by clicks, ties by id", async () => {
    const owner = await createOwner(api);
    const ids: number[] = [];
    for (let i = 0; i < 103; i++) ids.push((await newLink(owner)).id);
    const counts = ids.map((_, i) => (i < 3 ? 1 : 10 + (i % 5)));
    await insertRollups(
      "account_stats_daily",
      owner.user.id,
      ids.map((id, i): Rollup => ["link", "2026-03-02", String(id), counts[i] ?? 0]),
    );
    for (const [i, id] of ids.entries()) await insertRollups("link_stats_daily", id, [["clicks", "2026-03-02", "", counts[i] ?? 0]]);
    const res = await api.call(owner.user, "GET", `/api/v1/stats?name=links&${RANGE}`);
    expect(res.body.data).toHaveLength(100);
    expect(res.body.data.map((r: { id: number }) => r.id)).not.toContain(ids[0]);
    expect(res.body.data[0].count).toBe(14);
    const ranked = res.body.data.map((r: { count: number }) => r.count);
    expect(ranked).toEqual([...ranked].sort((x, y) => y - x));
  });

  it("links: a link never among any day's 200 busiest still ranks first when its days add up to the most (the threshold reads deeper)", async () => {
    const owner = await createOwner(api);
    const made = await queryRows<{ id: number }>(
      api.database.db,
      sql`insert into links (workspace_id, domain_id, alias, url) select ${owner.user.workspaceId}, ${owner.domain.id}, 'deep' || g || ${String(owner.user.id)}, 'https://dest.example/' || g from generate_series(1, 601) g returning id`,
    );
    const ids = made.map((r) => Number(r.id)).sort((a, b) => a - b);
    const steady = ids[600] as number;
    const days = ["2026-03-01", "2026-03-02", "2026-03-03"];
    // 200 links a day with 3 clicks on that day only; the steady link 2 clicks every day: 201st each day, 6 in all.
    const busy = ids.slice(0, 600).map((id, i) => [id, days[Math.floor(i / 200)] as string] as const);
    await queryRows(
      api.database.db,
      sql`insert into account_link_daily (workspace_id, day, link_id, count)
          select ${owner.user.workspaceId}::int, b.day::date, b.id, 3 from unnest(${`{${busy.map(([id]) => id).join(",")}}`}::int[], ${`{${busy.map(([, day]) => day).join(",")}}`}::text[]) as b(id, day)
          union all select ${owner.user.workspaceId}::int, d::date, ${steady}::int, 2 from unnest(${`{${days.join(",")}}`}::text[]) as d`,
    );
    await queryRows(
      api.database.db,
      sql`insert into link_stats_daily (link_id, dimension, day, value, count)
          select b.id, 'clicks', b.day::date, '', 3 from unnest(${`{${busy.map(([id]) => id).join(",")}}`}::int[], ${`{${busy.map(([, day]) => day).join(",")}}`}::text[]) as b(id, day)
          union all select ${steady}::int, 'clicks', d::date, '', 2 from unnest(${`{${days.join(",")}}`}::text[]) as d`,
    );
    const res = await api.call(owner.user, "GET", `/api/v1/stats?name=links&${RANGE}`);
    expect(res.body.data).toHaveLength(100);
    expect(res.body.data[0]).toMatchObject({ id: steady, count: 6 });
    expect(res.body.data.slice(1).map((r: { id: number }) => r.id)).toEqual(ids.slice(0, 99));
  });
  it("links: the threshold leaves out links that cannot reach the 100th, and reads deeper when a deleted link leaves a place", async () => {
    const owner = await createOwner(api);
    const made = await queryRows<{ id: number }>(
      api.database.db,
      sql`insert into links (workspace_id, domain_id, alias, url) select ${owner.user.workspaceId}, ${owner.domain.id}, 'thr' || g || '-' || ${String(owner.user.id)}, 'https://dest.example/' || g from generate_series(1, 250) g returning id`,
    );
    const ids = made.map((r) => Number(r.id)).sort((a, b) => a - b);
    const countOf = (i: number) => (i < 100 ? 50 : 1);
    const list = (values: Array<string | number>) => `{${values.join(",")}}`;
    await queryRows(
      api.database.db,
      sql`insert into account_link_daily (workspace_id, day, link_id, count)
          select ${owner.user.workspaceId}::int, '2026-03-02'::date, v.id, v.n from unnest(${list(ids)}::int[], ${list(ids.map((_, i) => countOf(i)))}::int[]) as v(id, n)`,
    );
    await queryRows(
      api.database.db,
      sql`insert into link_stats_daily (link_id, dimension, day, value, count)
          select v.id, 'clicks', '2026-03-02'::date, '', v.n from unnest(${list(ids)}::int[], ${list(ids.map((_, i) => countOf(i)))}::int[]) as v(id, n)`,
    );
    const all = await api.call(owner.user, "GET", `/api/v1/stats?name=links&${RANGE}`);
    expect(all.body.data.map((r: { id: number }) => r.id)).toEqual(ids.slice(0, 100));
    await api.call(owner.user, "DELETE", `/api/v1/links/${ids[5]}`);
    const after = await api.call(owner.user, "GET", `/api/v1/stats?name=links&${RANGE}`);
    expect(after.body.data.map((r: { id: number }) => r.id)).toEqual([...ids.slice(0, 5), ...ids.slice(6, 101)]);
    expect(after.body.data.at(-1)).toMatchObject({ id: ids[100], count: 1 });
  });
});

describe("GET /api/v1/domains/{id}/visits: orphan visits (CONTRACT §21)", () => {
  it("summary by kind, a row a day of humans and bots, the top unknown aliases; tRPC domains.visits answers the same", async () => {
    const owner = await createOwner(api);
    const id = owner.domain.id as number;
    await insertRollups("domain_visits_daily", id, [
      ["index", "2026-03-01", "", 3],
      ["not_found", "2026-03-01", "", 5],
      ["alias", "2026-03-01", "wp-login", 4],
      ["alias", "2026-03-01", "=cmd", 1],
      ["disabled", "2026-03-02", "", 2],
      ["expired", "2026-03-03", "", 1],
      ["bots", "2026-03-01", "", 7],
      ["bots", "2026-03-03", "", 2],
      ["index", "2026-02-01", "", 100],
    ]);
    const summary = await api.call(owner.user, "GET", `/api/v1/domains/${id}/visits?name=summary&${RANGE}`);
    expect(summary.body).toEqual({ data: { index: 3, not_found: 5, disabled: 2, expired: 1, bots: 9 }, status: 200 });
    const clicks = await api.call(owner.user, "GET", `/api/v1/domains/${id}/visits?name=clicks&${RANGE}`);
    expect(clicks.body.data).toEqual([
      { value: "2026-03-01", count: 8, bots: 7 },
      { value: "2026-03-02", count: 2, bots: 0 },
      { value: "2026-03-03", count: 1, bots: 2 },
    ]);
    const alias = await api.call(owner.user, "GET", `/api/v1/domains/${id}/visits?name=alias&${RANGE}`);
    expect(alias.body.data).toEqual([
      { value: "wp-login", count: 4 },
      { value: "=cmd", count: 1 },
    ]);
    const csv = await api.call(owner.user, "GET", `/api/v1/domains/${id}/visits?name=alias&${RANGE}&format=csv`);
    expect(csv.body).toBe("value,count\r\nwp-login,4\r\n'=cmd,1\r\n");
    const client = trpcClient(api.app, owner.user.apiKey);
    expect(await client.domains.visits.query({ id, name: "summary", from: "2026-03-01", to: "2026-03-03" })).toEqual(summary.body.data);
    const trpcClicks = await client.domains.visits.query({ id, name: "clicks", from: "2026-03-01", to: "2026-03-03" });
    expect("data" in trpcClicks && trpcClicks.data).toEqual(clicks.body.data);
  });
});

/** Hostile input for each new call, table-driven: every answer a 4xx with its fields, never a 500. */
describe("hostile input to the new calls", () => {
  const ranges: Array<[string, string, number, Record<string, string[]> | null]> = [
    ["an unknown name", "name=os", 422, null],
    ["no name", "", 422, null],
    ["a NUL in name", "name=summary%00", 422, null],
    ["from after to", "name=summary&from=2026-03-02&to=2026-03-01", 422, { from: ["The from date must be a date before or equal to the to date."] }],
    ["non-dates", "name=summary&from=yesterday&to=2026-02-30", 422, { from: ["The from date must be a date in the format YYYY-MM-DD."], to: ["The to date must be a date in the format YYYY-MM-DD."] }],
    ["a NUL in a date", "name=summary&from=2026-03-01%00", 422, null],
    ["clicks over 3660 days", "name=clicks&from=2000-01-01&to=2026-01-01", 422, { from: ["The range of clicks may span at most 3660 days."] }],
    ["a huge page", "name=clicks&page=99999999999", 422, null],
    ["an array name", "name[]=summary", 422, null],
  ];

  it.each(ranges)("stats/{id}, stats, domains/{id}/visits: %s", async (_label, query, status, fields) => {
    const owner = await createOwner(api);
    const link = await newLink(owner);
    for (const path of [`/api/v1/stats/${link.id}`, "/api/v1/stats", `/api/v1/domains/${owner.domain.id}/visits`]) {
      const res = await api.call(owner.user, "GET", `${path}?${query}`);
      expect(res.status, `${path}?${query}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.code).toBe("validation_failed");
      if (fields) expect(res.body.message).toEqual(fields);
      else expect(Object.keys(res.body.message).length).toBeGreaterThan(0);
    }
  });

  it("clicks_hour over 31 days is a 422 for a link; an account and a domain have no hourly series (422 on name)", async () => {
    const owner = await createOwner(api);
    const link = await newLink(owner);
    const hourly = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=clicks_hour&from=2026-01-01&to=2026-02-01`);
    expect(hourly.body.message).toEqual({ from: ["The range of clicks_hour may span at most 31 days."] });
    const account = await api.call(owner.user, "GET", `/api/v1/stats?name=clicks_hour`);
    expect(account.body.message).toEqual({ name: ["The name must be one of summary, clicks, links, country, platform, browser, device, language, referrer."] });
    const domain = await api.call(owner.user, "GET", `/api/v1/domains/${owner.domain.id}/visits?name=clicks_hour`);
    expect(domain.body.message).toEqual({ name: ["The name must be one of summary, clicks, alias."] });
  });

  it.each([["abc"], ["0"], ["-1"], ["1.5"], ["99999999999"], ["2147483648"], ["2000000000"], ["%00"]])("id %s: a 404 as for a missing link or domain", async (id) => {
    const owner = await createOwner(api);
    for (const path of [`/api/v1/stats/${id}?name=summary`, `/api/v1/domains/${id}/visits?name=summary`]) {
      const res = await api.call(owner.user, "GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ message: "Resource not found.", code: "not_found", status: 404 });
    }
  });

  it("another user's link or domain answers exactly what a missing one does, on REST and tRPC", async () => {
    const alice = await createOwner(api);
    const mallory = await createOwner(api);
    const link = await linkWithCounts(alice);
    for (const name of ["summary", "clicks", "bots"]) {
      const foreign = await api.call(mallory.user, "GET", `/api/v1/stats/${link.id}?name=${name}`);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual((await api.call(mallory.user, "GET", `/api/v1/stats/2000000000?name=${name}`)).body);
    }
    for (const name of ["summary", "clicks", "alias"]) {
      const foreign = await api.call(mallory.user, "GET", `/api/v1/domains/${alice.domain.id}/visits?name=${name}`);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual((await api.call(mallory.user, "GET", `/api/v1/domains/2000000000/visits?name=${name}`)).body);
    }
    const client = trpcClient(api.app, mallory.user.apiKey);
    expect((await failure(client.stats.summary.query({ link_id: link.id }))).data?.code).toBe("NOT_FOUND");
    expect((await failure(client.domains.visits.query({ id: alice.domain.id, name: "summary" }))).data?.code).toBe("NOT_FOUND");
    expect((await failure(client.stats.account.query({ name: "nope" as never }))).data?.code).toBe("BAD_REQUEST");
    expect((await failure(client.stats.summary.query({ link_id: 2 ** 40 }))).data?.code).toBe("BAD_REQUEST");
    expect((await failure(client.domains.visits.query({ id: "1" as never, name: "summary" }))).data?.code).toBe("BAD_REQUEST");
    expect((await failure(client.stats.account.query({ name: "summary\u0000" as never }))).data?.code).toBe("BAD_REQUEST");
    expect((await failure(client.stats.account.query({ name: "clicks", from: "2026-03-02", to: "2026-03-01" }))).data?.code).toBe("BAD_REQUEST");
    // The account-wide calls only ever count the caller's own links.
    expect((await api.call(mallory.user, "GET", `/api/v1/stats?name=summary&${RANGE}`)).body.data.clicks).toBe(0);
  });
});

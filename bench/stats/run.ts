/**
 * Statistics benchmark (docs/statistics.md): on a fresh PostgreSQL database, seed 1,000,000 clicks over
 * 90 days for one link through core's `recordClicks` (the visitor side's own write path, 5,000 clicks a
 * batch, so the rollups are filled exactly as in production), then time `GET /api/v1/stats/{id}` over
 * HTTP against the real all-in-one server for every `name`, and the same answers computed from the raw
 * clicks table (the baseline the rollups replace). Prints a markdown table.
 *
 *   pnpm bench:stats                      # BENCH_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres
 *   BENCH_CLICKS=200000 pnpm bench:stats  # a smaller run
 */
import { createHash, randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import pino from "pino";
import postgres from "postgres";
import { getAccountStats, getStats, getStatsSummary, personalActor, recordClicks, type AccountStatsName, type Click, type Ctx } from "@shortener/core";
import { seededRandom } from "@shortener/core/testing";
import { pgArray } from "@shortener/db";
import { parseEnv, startServer, type RunningServer } from "@shortener/launcher";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const CLICKS = Number(process.env.BENCH_CLICKS ?? 1_000_000);
const BATCH = 5_000;
const DAYS = 90;
const HTTP_RUNS = Number(process.env.BENCH_RUNS ?? 60);
const RAW_RUNS = Number(process.env.BENCH_RAW_RUNS ?? 8);
const ADMIN_KEY = `shk_${randomBytes(24).toString("hex")}`;
const DAY_MS = 86_400_000;

const NAMES = ["clicks", "clicks_hour", "country", "platform", "browser", "device", "language", "referrer", "bots"] as const;
type Name = (typeof NAMES)[number];
/** The calls of CONTRACT §21 timed beside the series: a link's summary, and every account-wide call. */
const ACCOUNT_NAMES: readonly AccountStatsName[] = ["summary", "clicks", "links", "country", "platform", "browser", "device", "language", "referrer"];
const DIMENSIONS = new Set<Name>(["country", "platform", "browser", "device", "language", "referrer"]);

/** A Zipf-like pick from `values`: the first is the most common; index `values.length` means unknown. */
function zipf(random: () => number, values: readonly string[], unknownShare: number): string | null {
  if (random() < unknownShare) return null;
  const i = Math.min(values.length - 1, Math.floor(values.length ** random() - 1));
  return values[i] ?? null;
}

const COUNTRIES =
  "US DE GB FR IN BR JP CA NL ES IT SE PL AU MX KR CH AT BE DK NO FI IE PT CZ RO HU GR TR IL AR CL CO PE ZA NG EG KE MA SA AE SG MY TH VN ID PH CN TW HK NZ UA RU BG HR RS SK SI LT LV EE".split(" ");
const PLATFORMS = ["Windows", "iOS", "Android", "OS X", "Linux", "Chrome OS", "Ubuntu"];
const BROWSERS = ["Chrome", "Mobile Safari", "Safari", "Edge", "Firefox", "Samsung Browser", "Opera", "Chrome WebView", "Brave", "Vivaldi"];
const DEVICES = ["desktop", "mobile", "tablet", "smarttv", "console"];
const LANGUAGES = "en de fr es pt ja it nl sv pl ko zh ru tr cs da fi no hu el he ar hi th vi id uk ro".split(" ");
const REFERRERS = Array.from({ length: 400 }, (_, i) =>
  i < 8 ? (["t.co", "www.google.com", "news.ycombinator.com", "github.com", "www.linkedin.com", "www.reddit.com", "www.facebook.com", "lobste.rs"][i] ?? "") : `site-${i}.example`,
);

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function time(runs: number, warmup: number, fn: () => Promise<void>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

/**
 * Visitors a day, per link (CONTRACT §21): each click is one of them, picked at random, so a visitor comes
 * back ~3 times a day whatever BENCH_CLICKS (~3,700 visitors a day at 1,000,000 clicks over 90 days).
 * Their hashes (16 hex digits, as the visitor side makes them under the day's salt) are made before the
 * clock starts: the visitor side hashes at visit time, not in `recordClicks`.
 */
const VISITORS_PER_DAY = Math.max(100, Math.round(CLICKS / DAYS / 3));

function visitorPool(days: number): string[][] {
  return Array.from({ length: days + 1 }, (_, day) => Array.from({ length: VISITORS_PER_DAY }, (_, v) => createHash("sha256").update(`${day}|${v}`).digest("hex").slice(0, 16)));
}

async function seed(server: RunningServer, linkId: number, end: number): Promise<{ seconds: number }> {
  const random = seededRandom(42);
  const start = end - DAYS * DAY_MS;
  const pool = visitorPool(DAYS);
  const began = performance.now();
  for (let offset = 0; offset < CLICKS; offset += BATCH) {
    const batch: Click[] = [];
    for (let i = offset; i < Math.min(CLICKS, offset + BATCH); i++) {
      // Chronological, as the click buffer writes them, with a little jitter.
      const at = Math.min(end - 1, start + ((i + random()) / CLICKS) * DAYS * DAY_MS);
      const platform = zipf(random, PLATFORMS, 0.03);
      batch.push({
        linkId,
        at: new Date(at),
        country: zipf(random, COUNTRIES, 0.04),
        platform,
        browser: zipf(random, BROWSERS, 0.02),
        device: zipf(random, DEVICES, 0.01) ?? "desktop",
        language: zipf(random, LANGUAGES, 0.05),
        referrer: zipf(random, REFERRERS, 0.35),
        counted: false,
        rotation: null,
        visitors: [pool[Math.floor((at - start) / DAY_MS)]?.[Math.floor(random() * VISITORS_PER_DAY)] ?? "0000000000000000"],
      });
    }
    await recordClicks(server.database.db, batch);
    if ((offset / BATCH) % 20 === 19) process.stderr.write(`  seeded ${(offset + BATCH).toLocaleString("en-US")} clicks\n`);
  }
  return { seconds: (performance.now() - began) / 1000 };
}

/** What recordClicks wrote before the rollups: the clicks insert and the counter update, nothing else. */
async function recordClicksWithoutRollups(sql: postgres.Sql, clicks: Click[]): Promise<void> {
  const col = <K extends keyof Click>(key: K) => clicks.map((c) => c[key]);
  const linkId = clicks[0]?.linkId ?? 0;
  await sql.begin(async (tx) => {
    await tx.unsafe(
      `insert into clicks (link_id, created_at, country, platform, browser, device, language, referrer)
       select v.link_id, v.created_at, v.country, v.platform, v.browser, v.device, v.language, v.referrer
       from unnest($1::int[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
         as v(link_id, created_at, country, platform, browser, device, language, referrer)
       where exists (select 1 from links where links.id = v.link_id)`,
      [
        pgArray(col("linkId")),
        pgArray(col("at").map((d) => d.toISOString())),
        pgArray(col("country")),
        pgArray(col("platform")),
        pgArray(col("browser")),
        pgArray(col("device")),
        pgArray(col("language")),
        pgArray(col("referrer")),
      ],
    );
    await tx.unsafe(`update links set clicks = clicks + $1 where id = $2`, [clicks.length, linkId]);
  });
}

/** Write cost: one batch of BATCH clicks with and without the rollups, alternating, on a second link. */
async function measureWrites(server: RunningServer, sql: postgres.Sql, linkId: number, end: number) {
  const random = seededRandom(7);
  const batch = (): Click[] =>
    Array.from({ length: BATCH }, (_, i) => ({
      linkId,
      at: new Date(end - DAY_MS + i * 10),
      country: zipf(random, COUNTRIES, 0.04),
      platform: zipf(random, PLATFORMS, 0.03),
      browser: zipf(random, BROWSERS, 0.02),
      device: zipf(random, DEVICES, 0.01),
      language: zipf(random, LANGUAGES, 0.05),
      referrer: zipf(random, REFERRERS, 0.35),
      counted: false,
      rotation: null,
    }));
  const samples = { with: [] as number[], without: [] as number[] };
  for (let round = 0; round < 12; round++) {
    for (const kind of ["without", "with"] as const) {
      const clicks = batch();
      const start = performance.now();
      if (kind === "with") await recordClicks(server.database.db, clicks);
      else await recordClicksWithoutRollups(sql, clicks);
      if (round >= 2) samples[kind].push(performance.now() - start);
    }
  }
  for (const list of Object.values(samples)) list.sort((a, b) => a - b);
  return { with: percentile(samples.with, 50), without: percentile(samples.without, 50) };
}

/** The baseline: each series computed from the raw clicks (what a stats query costs without rollups; a row is `count` clicks). */
function rawQuery(sql: postgres.Sql, name: Name, linkId: number, from: string, to: string): Promise<unknown> {
  const lower = `${from}T00:00:00Z`;
  const upper = new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS).toISOString();
  if (name === "clicks") {
    return sql`select (created_at at time zone 'UTC')::date as day, sum(count) from clicks
               where link_id = ${linkId} and created_at >= ${lower}::timestamptz and created_at < ${upper}::timestamptz group by 1`;
  }
  if (name === "clicks_hour") {
    return sql`select date_trunc('hour', created_at at time zone 'UTC') as hour, sum(count) from clicks
               where link_id = ${linkId} and created_at >= ${lower}::timestamptz and created_at < ${upper}::timestamptz group by 1`;
  }
  if (name === "bots") return Promise.resolve(null);
  const column = sql(name);
  return sql`select value, count from (
               select coalesce(nullif(${column}, ''), 'Unknown') as value, sum(count) as count from clicks
               where link_id = ${linkId} and created_at >= ${lower}::timestamptz and created_at < ${upper}::timestamptz
               group by 1
             ) ranked order by count desc, value collate "C"`;
}

async function main(): Promise<void> {
  const dbName = `shortener_bench_stats_${randomBytes(4).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const port = 20000 + Math.floor(Math.random() * 20000);
  let server: RunningServer | undefined;
  try {
    server = await startServer(parseEnv({ DATABASE_URL: url.toString(), PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: "1000000", SERVICES: "api" }), pino({ level: "silent" }));
    const base = `http://127.0.0.1:${port}`;
    const call = async (path: string, accept = "application/json") => {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}`, accept } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
      return body;
    };
    const domains = JSON.parse(await call("/api/v1/domains")) as { data: Array<{ id: number }> };
    const created = await fetch(`${base}/api/v1/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/x-www-form-urlencoded" },
      body: `url=https%3A%2F%2Fexample.org%2F&domain_id=${domains.data[0]?.id}&title=Benchmark`,
    });
    const linkId = ((await created.json()) as { data: { id: number } }).data.id;
    const second = await fetch(`${base}/api/v1/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/x-www-form-urlencoded" },
      body: `url=https%3A%2F%2Fexample.org%2Fw&domain_id=${domains.data[0]?.id}&title=Writes`,
    });
    const writeLinkId = ((await second.json()) as { data: { id: number } }).data.id;

    const account = JSON.parse(await call("/api/v1/account")) as { data: { id: number } };
    const actor = await personalActor(server.database.db, { id: account.data.id, role: "admin" });
    if (!actor) throw new Error("the admin has no personal workspace");
    const ctx: Ctx = { db: server.database.db, now: () => new Date(), actor };
    const end = Date.now();
    process.stderr.write(`Seeding ${CLICKS.toLocaleString("en-US")} clicks over ${DAYS} days through recordClicks (${BATCH.toLocaleString("en-US")} a batch)…\n`);
    const seeded = await seed(server, linkId, end);
    const sql = server.database.postgres;
    if (!sql) throw new Error("the benchmark needs PostgreSQL");
    await sql`vacuum analyze clicks`;
    await sql`vacuum analyze link_stats_daily`;
    await sql`vacuum analyze account_stats_daily`;
    await sql`vacuum analyze account_link_daily`;
    const writes = await measureWrites(server, sql, writeLinkId, end);
    const [sizes] = await sql<Array<{ clicks: string; rollups: string; rollup_rows: string }>>`
      select pg_size_pretty(pg_total_relation_size('clicks')) as clicks, pg_size_pretty(pg_total_relation_size('link_stats_daily')) as rollups,
             (select count(*) from link_stats_daily)::text as rollup_rows`;

    const today = new Date(end).toISOString().slice(0, 10);
    const from30 = new Date(end - 29 * DAY_MS).toISOString().slice(0, 10);
    const from90 = new Date(end - 89 * DAY_MS).toISOString().slice(0, 10);
    const cases: Array<{ name: Name; label: string; query: string; from: string }> = [];
    for (const name of NAMES) {
      cases.push({ name, label: "30 days (default)", query: "", from: from30 });
      if (name === "clicks" || DIMENSIONS.has(name)) cases.push({ name, label: "90 days", query: `&from=${from90}&to=${today}`, from: from90 });
    }

    const rows: string[] = [];
    const extra: string[] = [];
    for (const [label, query, from] of [
      ["30 days (default)", "", from30],
      ["90 days", `&from=${from90}&to=${today}`, from90],
    ] as const) {
      const range = query ? { from, to: today } : {};
      const timings: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
        [`/stats/{id}?name=summary`, () => call(`/api/v1/stats/${linkId}?name=summary${query}`), () => getStatsSummary({ ctx, input: { link_id: linkId, ...range } })],
        ...ACCOUNT_NAMES.map((name): [string, () => Promise<unknown>, () => Promise<unknown>] => [
          `/stats?name=${name}`,
          () => call(`/api/v1/stats?name=${name}${query}`),
          () => getAccountStats({ ctx, input: { name, ...range } }),
        ]),
      ];
      for (const [path, viaHttp, inProcess] of timings) {
        process.stderr.write(`  timing ${path}, ${label}\n`);
        const http = await time(HTTP_RUNS, 5, async () => void (await viaHttp()));
        const verb = await time(HTTP_RUNS, 3, async () => void (await inProcess()));
        extra.push(`| ${path} | ${label} | ${ms(http.p50)} | ${ms(http.p95)} | ${ms(verb.p50)} | ${ms(verb.p95)} |`);
      }
    }
    for (const c of cases) {
      process.stderr.write(`  timing ${c.name}, ${c.label}\n`);
      const http = await time(HTTP_RUNS, 5, async () => {
        await call(`/api/v1/stats/${linkId}?name=${c.name}${c.query}`);
      });
      const verb = await time(HTTP_RUNS, 3, async () => {
        await getStats({ ctx, input: { link_id: linkId, name: c.name, ...(c.query ? { from: c.from, to: today } : {}) } });
      });
      if (c.name === "bots") {
        rows.push(`| ${c.name} | ${c.label} | ${ms(http.p50)} | ${ms(http.p95)} | ${ms(verb.p50)} | – | – | – |`);
        continue;
      }
      const raw = await time(RAW_RUNS, 1, async () => {
        await rawQuery(sql, c.name, linkId, c.from, today);
      });
      rows.push(`| ${c.name} | ${c.label} | ${ms(http.p50)} | ${ms(http.p95)} | ${ms(verb.p50)} | ${ms(raw.p50)} | ${ms(raw.p95)} | ${(raw.p50 / verb.p50).toFixed(1)}× |`);
    }
    const page = await time(HTTP_RUNS, 3, async () => {
      await call(`/stats/${linkId}`, "text/html");
    });
    const pageJson = await time(HTTP_RUNS, 3, async () => {
      await call(`/stats/${linkId}`);
    });

    const lines = [
      `Statistics benchmark: ${CLICKS.toLocaleString("en-US")} clicks over ${DAYS} days on one link, PostgreSQL ${(await sql<Array<{ v: string }>>`select current_setting('server_version') as v`)[0]?.v}, ${HTTP_RUNS} sequential requests per row (after 5 warm-up), raw baseline ${RAW_RUNS} runs.`,
      `Seeded through recordClicks in ${seeded.seconds.toFixed(1)} s (${Math.round(CLICKS / seeded.seconds).toLocaleString("en-US")} clicks/s, rollups included); clicks table ${sizes?.clicks}, rollups ${sizes?.rollups} (${Number(sizes?.rollup_rows).toLocaleString("en-US")} rows).`,
      "",
      "| name | range | API p50 ms | API p95 ms | rollups, no HTTP p50 ms | raw clicks p50 ms | raw clicks p95 ms | gain (p50, no HTTP) |",
      "|---|---|---|---|---|---|---|---|",
      ...rows,
      "",
      "The summary and the account-wide calls (CONTRACT §21) on the same data: the account is this one link's owner.",
      "",
      "| call | range | API p50 ms | API p95 ms | in process p50 ms | in process p95 ms |",
      "|---|---|---|---|---|---|",
      ...extra,
      "",
      `Write cost of one ${BATCH.toLocaleString("en-US")}-click batch (p50 of 10, another link): recordClicks with the rollups ${ms(writes.with)} ms; the clicks insert and counter update alone (before this change) ${ms(writes.without)} ms.`,
      `Public page \`/stats/{id}\`, every series, default range: HTML p50 ${ms(page.p50)} ms / p95 ${ms(page.p95)} ms; JSON p50 ${ms(pageJson.p50)} ms / p95 ${ms(pageJson.p95)} ms.`,
      "API: the whole HTTP round trip on loopback (server and client share the machine's 2 cores). Rollups, no HTTP: core's getStats called in process (its SQL on the rollups plus filling the gaps). Raw clicks: the same series computed from `clicks` by SQL alone, via the (link_id, created_at) index. Gain: raw ÷ rollups.",
    ];
    console.log(lines.join("\n"));
  } finally {
    await server?.close().catch(() => {});
    if (!process.env.BENCH_KEEP) await admin.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => {});
    await admin.end();
  }
}

await main();

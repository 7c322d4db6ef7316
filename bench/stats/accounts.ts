/**
 * Account-wide statistics benchmark (CONTRACT §21, docs/adr/0042-account-wide-statistics.md): on a
 * fresh PostgreSQL database, one account with 100,000 links and 1,000,000 visits between them over 90
 * days — a realistic spread: link popularity follows Zipf's law (the first link gets about 1 visit in
 * 12, the ten-thousandth a few, most of the tail one or none), 15 % of visits are bots by name, people
 * come back (unique visitors are fewer than clicks). The visits go through core's `recordClicks`, the
 * visitor side's own write path, so the links' and the account's rollups are exactly production's.
 * Then every account-wide call, `GET /api/v1/stats?name=…`, is timed over HTTP against the real
 * server and in process, for 30 and 90 days. Prints a markdown table.
 *
 *   pnpm bench:stats:accounts                                    # BENCH_DATABASE_URL, else local postgres
 *   BENCH_LINKS=10000 BENCH_CLICKS=100000 pnpm bench:stats:accounts # a smaller run
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import pino from "pino";
import postgres from "postgres";
import { ACCOUNT_STATS_NAMES, getAccountStats, personalActor, recordClicks, type Click, type Ctx } from "@shortener/core";
import { seededRandom } from "@shortener/core/testing";
import { parseEnv, startServer, type RunningServer } from "@shortener/launcher";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const LINKS = Number(process.env.BENCH_LINKS ?? 100_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 1_000_000);
const BATCH = 5_000;
const DAYS = 90;
const RUNS = Number(process.env.BENCH_RUNS ?? 60);
const ADMIN_KEY = `shk_${randomBytes(24).toString("hex")}`;
const DAY_MS = 86_400_000;

const COUNTRIES = "US DE GB FR IN BR JP CA NL ES IT SE PL AU MX KR CH AT BE DK NO FI IE PT CZ".split(" ");
const PLATFORMS = ["Windows", "iOS", "Android", "OS X", "Linux", "Chrome OS"];
const BROWSERS = ["Chrome", "Mobile Safari", "Safari", "Edge", "Firefox", "Samsung Browser"];
const DEVICES = ["desktop", "mobile", "tablet"];
const LANGUAGES = "en de fr es pt ja it nl sv pl".split(" ");
const REFERRERS = Array.from({ length: 200 }, (_, i) => (i < 4 ? (["t.co", "www.google.com", "news.ycombinator.com", "github.com"][i] ?? "") : `site-${i}.example`));
const BOTS = ["Googlebot", "bingbot", "Slackbot", "facebookexternalhit", "Twitterbot", "WhatsApp", "Discordbot", "LinkedInBot", "AhrefsBot", "SemrushBot"];

/** A Zipf-like pick of an index below `n`: 0 is the most common (P(i) ∝ 1/(i+1)). */
function zipfIndex(random: () => number, n: number): number {
  return Math.min(n - 1, Math.floor((n + 1) ** random()) - 1);
}
const pick = <T>(random: () => number, values: readonly T[], unknownShare = 0): T | null => (random() < unknownShare ? null : (values[zipfIndex(random, values.length)] ?? null));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function time(runs: number, warmup: number, fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
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

/** 1,000,000 visits, chronological as the click buffer writes them, through recordClicks. */
async function seed(server: RunningServer, linkIds: number[], end: number): Promise<number> {
  const random = seededRandom(29);
  const start = end - DAYS * DAY_MS;
  const began = performance.now();
  for (let offset = 0; offset < CLICKS; offset += BATCH) {
    const batch: Click[] = [];
    for (let i = offset; i < Math.min(CLICKS, offset + BATCH); i++) {
      const at = new Date(Math.min(end - 1, start + ((i + random()) / CLICKS) * DAYS * DAY_MS));
      const linkId = linkIds[zipfIndex(random, linkIds.length)] ?? 0;
      const bot = random() < 0.15 ? pick(random, BOTS) : null;
      // About 3 visits a visitor: the same 16 hex digits come back (a day's keyed hash, ADR 0041).
      const visitor = Math.floor(random() * (CLICKS / 3))
        .toString(16)
        .padStart(16, "0");
      batch.push({
        linkId,
        at,
        country: pick(random, COUNTRIES, 0.04),
        platform: pick(random, PLATFORMS, 0.03),
        browser: pick(random, BROWSERS, 0.02),
        device: pick(random, DEVICES) ?? "desktop",
        language: pick(random, LANGUAGES, 0.05),
        referrer: pick(random, REFERRERS, 0.35),
        counted: false,
        rotation: null,
        bot,
        ...(bot ? {} : { visitors: [visitor] }),
      });
    }
    await recordClicks(server.database.db, batch);
    if ((offset / BATCH) % 20 === 19) process.stderr.write(`  seeded ${(offset + BATCH).toLocaleString("en-US")} visits\n`);
  }
  return (performance.now() - began) / 1000;
}

async function main(): Promise<void> {
  const dbName = `shortener_bench_accounts_${randomBytes(4).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const port = 20000 + Math.floor(Math.random() * 20000);
  let server: RunningServer | undefined;
  try {
    server = await startServer(parseEnv({ DATABASE_URL: url.toString(), PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: "1000000", SERVICES: "api" }), pino({ level: "silent" }));
    const sql = server.database.postgres;
    if (!sql) throw new Error("the benchmark needs PostgreSQL");
    const base = `http://127.0.0.1:${port}`;
    const call = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
      return body;
    };
    const account = (JSON.parse(await call("/api/v1/account")) as { data: { id: number } }).data.id;
    const actor = await personalActor(server.database.db, { id: account, role: "admin" });
    if (!actor) throw new Error("the admin has no personal workspace");
    const domain = (JSON.parse(await call("/api/v1/domains")) as { data: Array<{ id: number }> }).data[0]?.id;
    // The links themselves are not what is measured: written in one statement.
    const ids = await sql<Array<{ id: number }>>`
      insert into links (workspace_id, domain_id, alias, url)
      select ${actor.workspaceId}, ${domain ?? 0}, 'b' || g, 'https://example.org/' || g from generate_series(1, ${LINKS}) g
      returning id`;
    const linkIds = ids.map((r) => r.id);
    const end = Date.now();
    process.stderr.write(`Seeding ${CLICKS.toLocaleString("en-US")} visits over ${DAYS} days on ${LINKS.toLocaleString("en-US")} links through recordClicks…\n`);
    const seconds = await seed(server, linkIds, end);
    for (const table of ["clicks", "link_stats_daily", "account_stats_daily", "account_link_daily", "links"]) await sql.unsafe(`vacuum analyze ${table}`);
    const [facts] = await sql<Array<{ rows: string; size: string; link_rows: string; link_size: string; linked: string; clicks: string; bots: string }>>`
      select (select count(*) from account_stats_daily)::text as rows, pg_size_pretty(pg_total_relation_size('account_stats_daily')) as size,
             (select count(*) from account_link_daily)::text as link_rows, pg_size_pretty(pg_total_relation_size('account_link_daily')) as link_size,
             (select count(*) from links where clicks > 0)::text as linked, (select sum(clicks) from links)::text as clicks,
             (select sum(count) from account_stats_daily where dimension = 'bots')::text as bots`;

    const ctx: Ctx = { db: server.database.db, now: () => new Date(), actor };
    const today = new Date(end).toISOString().slice(0, 10);
    const rows: string[] = [];
    for (const [label, days] of [
      ["30 days (default)", 0],
      ["90 days", 90],
    ] as const) {
      const range = days ? { from: new Date(end - (days - 1) * DAY_MS).toISOString().slice(0, 10), to: today } : {};
      const query = days ? `&from=${range.from}&to=${range.to}` : "";
      for (const name of ACCOUNT_STATS_NAMES) {
        process.stderr.write(`  timing ${name}, ${label}\n`);
        const http = await time(RUNS, 5, () => call(`/api/v1/stats?name=${name}${query}`));
        const verb = await time(RUNS, 3, () => getAccountStats({ ctx, input: { name, ...range } }));
        rows.push(`| ${name} | ${label} | ${ms(http.p50)} | ${ms(http.p95)} | ${ms(verb.p50)} | ${ms(verb.p95)} |`);
      }
    }
    const version = (await sql<Array<{ v: string }>>`select current_setting('server_version') as v`)[0]?.v;
    console.log(
      [
        `Account-wide statistics: ${LINKS.toLocaleString("en-US")} links, ${CLICKS.toLocaleString("en-US")} visits over ${DAYS} days (Zipf over the links, 15 % bots), PostgreSQL ${version}, ${RUNS} sequential requests per row after 5 warm-up.`,
        `Seeded through recordClicks in ${seconds.toFixed(1)} s: ${Number(facts?.clicks).toLocaleString("en-US")} clicks by people on ${Number(facts?.linked).toLocaleString("en-US")} links, ${Number(facts?.bots).toLocaleString("en-US")} bots; account_stats_daily ${Number(facts?.rows).toLocaleString("en-US")} rows, ${facts?.size}; account_link_daily ${Number(facts?.link_rows).toLocaleString("en-US")} rows, ${facts?.link_size}.`,
        "",
        "| name | range | API p50 ms | API p95 ms | in process p50 ms | in process p95 ms |",
        "|---|---|---|---|---|---|",
        ...rows,
        "",
        "API: the whole HTTP round trip on loopback (server and client share the machine's 2 cores). In process: core's getAccountStats.",
      ].join("\n"),
    );
  } finally {
    await server?.close().catch(() => {});
    if (!process.env.BENCH_KEEP) await admin.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => {});
    await admin.end();
  }
}

await main();

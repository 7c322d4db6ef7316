/**
 * How many of the rollups' updates are HOT (docs/adr/0058-account-link-rollups-hot.md): on a fresh
 * PostgreSQL database per shape, BENCH_CLICKS visits (default 100,000) go through core's `recordClicks`,
 * chronological as the click buffer writes them (15 % bots by name, about 3 visits a visitor), then
 * `pg_stat_user_tables` is read for the rollup tables. Three shapes (SHAPES): one link taking every visit
 * over the 90 days before END, 5,000 a batch (`bench:stats`' seeding); 10,000 links under Zipf's law, the same
 * (`bench:stats:accounts`' spread); and 1,000 links over one day in batches of 500, closer to a live
 * visitor side, whose batches update the same day's rows again and again. Not a timing: the counts do
 * not depend on the machine's load.
 *
 *   NODE_OPTIONS=--conditions=@shortener/source node --import tsx bench/stats/hot-updates.ts
 */
import { migrate, openDb, queryRows, sql } from "@shortener/db";
import { recordClicks, type Click } from "@shortener/core";
import { seededRandom } from "@shortener/core/testing";
import { createBenchDb, dropBenchDb } from "../api/db.ts";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const CLICKS = Number(process.env.BENCH_CLICKS ?? 100_000);
const DAY_MS = 86_400_000;
/** The visits end here, at a UTC midnight: the same days in every run, and the one-day shape within one day. */
const END = Date.parse("2026-12-02T00:00:00Z");
const TABLES = ["account_stats_daily", "account_link_daily", "link_stats_daily"];

const COUNTRIES = "US DE GB FR IN BR JP CA NL ES IT SE PL AU MX KR CH AT BE DK NO FI IE PT CZ".split(" ");
const PLATFORMS = ["Windows", "iOS", "Android", "OS X", "Linux", "Chrome OS"];
const BROWSERS = ["Chrome", "Mobile Safari", "Safari", "Edge", "Firefox", "Samsung Browser"];
const LANGUAGES = "en de fr es pt ja it nl sv pl".split(" ");
const REFERRERS = Array.from({ length: 200 }, (_, i) => `site-${i}.example`);
const BOTS = ["Googlebot", "bingbot", "Slackbot", "facebookexternalhit", "Twitterbot"];

/** A Zipf-like pick of an index below `n`: 0 is the most common (P(i) ∝ 1/(i+1)). */
function zipfIndex(random: () => number, n: number): number {
  return Math.min(n - 1, Math.floor((n + 1) ** random()) - 1);
}
const pick = <T>(random: () => number, values: readonly T[]): T => values[zipfIndex(random, values.length)] as T;

type TableStats = { table: string; ins: number; upd: number; hot: number; heap: string; indexes: string };

/** Links sharing the visits, the days they span (ending now), and visits a `recordClicks` batch. */
type Shape = { links: number; days: number; batch: number };
const SHAPES: Shape[] = [
  { links: 1, days: 90, batch: 5_000 },
  { links: 10_000, days: 90, batch: 5_000 },
  { links: 1_000, days: 1, batch: 500 },
];

async function measure({ links, days, batch: size }: Shape): Promise<TableStats[]> {
  const bench = await createBenchDb(ADMIN_URL);
  try {
    const database = await openDb({ url: bench.url, poolSize: 2 });
    try {
      await migrate(database);
      const db = database.db;
      const [owner] = await queryRows<{ domain_id: number; workspace_id: number }>(
        db,
        sql`
        with u as (insert into users (email, name) values ('hot@example.test', 'Hot') returning id),
             w as (insert into workspaces (name, personal_user_id) select 'Hot', id from u returning id),
             d as (insert into domains (workspace_id, name, verified_at) select id, 'hot.example.test', now() from w returning id, workspace_id)
        select id as domain_id, workspace_id from d`,
      );
      if (!owner) throw new Error("no domain");
      const ids = await queryRows<{ id: number }>(
        db,
        sql`
        insert into links (workspace_id, domain_id, alias, url)
        select ${owner.workspace_id}, ${owner.domain_id}, 'h' || g, 'https://example.org/' || g from generate_series(1, ${links}) g
        returning id`,
      );
      const random = seededRandom(58);
      const end = END;
      const start = end - days * DAY_MS;
      for (let offset = 0; offset < CLICKS; offset += size) {
        const batch: Click[] = [];
        for (let i = offset; i < Math.min(CLICKS, offset + size); i++) {
          const bot = random() < 0.15 ? pick(random, BOTS) : null;
          const visitor = Math.floor(random() * (CLICKS / 3))
            .toString(16)
            .padStart(16, "0");
          batch.push({
            linkId: ids[zipfIndex(random, ids.length)]?.id ?? 0,
            at: new Date(Math.min(end - 1, start + ((i + random()) / CLICKS) * days * DAY_MS)),
            country: pick(random, COUNTRIES),
            platform: pick(random, PLATFORMS),
            browser: pick(random, BROWSERS),
            device: random() < 0.5 ? "desktop" : "mobile",
            language: pick(random, LANGUAGES),
            referrer: random() < 0.35 ? null : pick(random, REFERRERS),
            counted: false,
            rotation: null,
            bot,
            ...(bot ? {} : { visitors: [visitor] }),
          });
        }
        await recordClicks(db, batch);
      }
    } finally {
      // A backend reports its table counters when it ends: read them on a new connection.
      await database.close();
    }
    const reader = await openDb({ url: bench.url, poolSize: 1 });
    try {
      return await queryRows<TableStats>(
        reader.db,
        sql`
        select relname as table, n_tup_ins::int as ins, n_tup_upd::int as upd, n_tup_hot_upd::int as hot,
               pg_size_pretty(pg_relation_size(relid)) as heap, pg_size_pretty(pg_indexes_size(relid)) as indexes
        from pg_stat_user_tables where relname = any(${`{${TABLES.join(",")}}`}::text[]) order by relname`,
      );
    } finally {
      await reader.close();
    }
  } finally {
    await dropBenchDb(ADMIN_URL, bench.name);
  }
}

console.log(`${CLICKS.toLocaleString("en-US")} visits through recordClicks in each shape\n`);
console.log("| links, days, visits a batch | table | inserts | updates | HOT updates | HOT % | heap | indexes |");
console.log("|---|---|---:|---:|---:|---:|---:|---:|");
for (const shape of SHAPES) {
  const label = `${shape.links.toLocaleString("en-US")}, ${shape.days}, ${shape.batch.toLocaleString("en-US")}`;
  for (const t of await measure(shape)) {
    const share = t.upd ? ((100 * t.hot) / t.upd).toFixed(1) : "-";
    console.log(`| ${label} | ${t.table} | ${t.ins.toLocaleString("en-US")} | ${t.upd.toLocaleString("en-US")} | ${t.hot.toLocaleString("en-US")} | ${share} | ${t.heap} | ${t.indexes} |`);
  }
}

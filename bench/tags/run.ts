/**
 * Tags at scale (CONTRACT §25, docs/adr/0051-tags-utm-weighted-rotation.md): on a fresh PostgreSQL
 * database, one workspace with BENCH_LINKS links (default 1,000,000): 30 % tagged `common`, 1 % `rare`
 * (and `common`), 10 links `needle`, the rest untagged. Times, side by side in one run:
 *
 *   - a tag-filtered list page (25 links and the total) the way it was read before (one statement,
 *     `count(*) over ()`) and the way it is now (the page and a count, apart), as SQL on the same data,
 *     then the real `GET /api/v1/links?tag=…` over HTTP;
 *   - the tag counts before (unnest every tagged link) and now (`workspace_tags`), then `GET /api/v1/tags`;
 *   - a create's respelling lookup before (the oldest link carrying the tag) and now (a row a tag).
 *
 *   pnpm bench:tags                          # BENCH_DATABASE_URL, else local postgres
 *   BENCH_LINKS=100000 pnpm bench:tags       # a smaller run
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import pino from "pino";
import postgres from "postgres";
import { personalActor } from "@shortener/core";
import { parseEnv, startServer, type RunningServer } from "@shortener/launcher";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const LINKS = Number(process.env.BENCH_LINKS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const ADMIN_KEY = `shk_${randomBytes(24).toString("hex")}`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function time(runs: number, fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 3; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));

async function main(): Promise<void> {
  const dbName = `shortener_bench_tags_${randomBytes(4).toString("hex")}`;
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
    const ws = actor.workspaceId;
    const domain = (JSON.parse(await call("/api/v1/domains")) as { data: Array<{ id: number }> }).data[0]?.id ?? 0;
    process.stderr.write(`Seeding ${LINKS.toLocaleString("en-US")} links (30 % common, 1 % rare, 10 needle)…\n`);
    const seedStart = performance.now();
    // Written in one statement through the triggers, as an import's batch would be (the count keeping is in it).
    await sql`
      insert into links (workspace_id, domain_id, alias, url, tags, tag_keys)
      select ${ws}, ${domain}, 'b' || g, 'https://example.org/' || g,
             case when g % 100 = 0 then array['Rare', 'Common'] when g % 10 < 3 then array['Common'] when g % (${LINKS} / 10) = 7 then array['Needle'] else '{}'::text[] end,
             case when g % 100 = 0 then array['rare', 'common'] when g % 10 < 3 then array['common'] when g % (${LINKS} / 10) = 7 then array['needle'] else '{}'::text[] end
      from generate_series(1, ${LINKS}) g`;
    const seedSeconds = (performance.now() - seedStart) / 1000;
    await sql.unsafe("vacuum analyze links");
    await sql.unsafe("vacuum analyze workspace_tags");

    const rows: string[] = [];
    const row = (what: string, before: { p50: number; p95: number } | null, now: { p50: number; p95: number }) =>
      rows.push(`| ${what} | ${before ? `${ms(before.p50)} / ${ms(before.p95)}` : "–"} | ${ms(now.p50)} / ${ms(now.p95)} | ${before ? `${(before.p50 / now.p50).toFixed(1)} ×` : "–"} |`);
    const filter = (tag: string) => sql`l.workspace_id = ${ws} and l.tag_keys <> '{}'::text[] and l.tag_keys && ${[tag]}::text[]`;
    for (const tag of ["needle", "rare", "common"]) {
      const before = await time(
        RUNS,
        () => sql`select l.id, l.alias, l.url, l.tags, (count(*) over ())::int as total from links l join domains d on d.id = l.domain_id where ${filter(tag)} order by l.id desc limit 25`,
      );
      // Now: the count kept in workspace_tags, then the page (through the tag index when few links carry it, as listLinks does).
      const now = await time(RUNS, async () => {
        const [kept] = await sql<Array<{ n: string }>>`select n from workspace_tags where workspace_id = ${ws} and key = ${tag}`;
        return Number(kept?.n ?? 0) ** 2 < 25 * LINKS
          ? sql`select l.id, l.alias, l.url, l.tags from links l join domains d on d.id = l.domain_id where ${filter(tag)} and l.id in (select l.id from links l where ${filter(tag)} offset 0) order by l.id desc limit 25`
          : sql`select l.id, l.alias, l.url, l.tags from links l join domains d on d.id = l.domain_id where ${filter(tag)} order by l.id desc limit 25`;
      });
      row(`list page, \`tag=${tag}\` (SQL)`, before, now);
      row(`\`GET /api/v1/links?tag=${tag}\` (HTTP)`, null, await time(RUNS, () => call(`/api/v1/links?tag=${tag}`)));
    }
    const countsBefore = await time(
      Math.min(RUNS, 10),
      () =>
        sql`select (array_agg(u.tag order by l.id))[1] as name, count(*) from links l, unnest(l.tags, l.tag_keys) as u(tag, key) where l.workspace_id = ${ws} and l.tag_keys <> '{}'::text[] group by u.key order by count(*) desc, u.key collate "C"`,
    );
    row("tag counts (SQL)", countsBefore, await time(RUNS, () => sql`select name, n from workspace_tags where workspace_id = ${ws} and n > 0 order by n desc, key collate "C"`));
    row("`GET /api/v1/tags` (HTTP)", null, await time(RUNS, () => call("/api/v1/tags")));
    const keys = ["common", "new-tag"];
    const respellBefore = await time(
      Math.min(RUNS, 10),
      () =>
        sql`select distinct on (u.key) u.tag, u.key from links l, unnest(l.tags, l.tag_keys) as u(tag, key) where l.workspace_id = ${ws} and l.tag_keys <> '{}'::text[] and l.tag_keys && ${keys}::text[] and u.key = any(${keys}::text[]) order by u.key, l.id`,
    );
    row(
      "a create's respelling of `common` (SQL)",
      respellBefore,
      await time(RUNS, () => sql`select key, name from workspace_tags where workspace_id = ${ws} and key = any(${keys}::text[]) and n > 0`),
    );
    const created = await time(RUNS, async () => {
      const res = await fetch(`${base}/api/v1/links`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ url: "https://example.com/x", domain_id: String(domain), "tags[]": "COMMON" }),
      });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
    });
    row("`POST /api/v1/links` with `tags[]=COMMON` (HTTP)", null, created);
    const [counts] = await sql<Array<{ common: string; rare: string; needle: string }>>`
      select (select n from workspace_tags where workspace_id = ${ws} and key = 'common')::text as common,
             (select n from workspace_tags where workspace_id = ${ws} and key = 'rare')::text as rare,
             (select n from workspace_tags where workspace_id = ${ws} and key = 'needle')::text as needle`;

    console.log(
      `\nTags at scale: ${LINKS.toLocaleString("en-US")} links in one workspace (seeded in ${seedSeconds.toFixed(1)} s through the triggers); counts kept: common ${counts?.common}, rare ${counts?.rare}, needle ${counts?.needle}; ${RUNS} runs each (10 for the slow "before" counts), ${new Date().toISOString()}\n`,
    );
    console.log("| call | before: p50 / p95 ms | now: p50 / p95 ms | before ÷ now (p50) |");
    console.log("|---|---:|---:|---:|");
    for (const r of rows) console.log(r);
  } finally {
    await server?.close();
    await admin.unsafe(`drop database if exists "${dbName}" with (force)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

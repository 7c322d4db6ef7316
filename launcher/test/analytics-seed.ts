import { accountLinkDaily, accountStatsDaily, domainVisitsDaily, linkStatsDaily, type Db } from "@shortener/db";

/**
 * Realistic history for the dashboard's analytics (its browser test and screenshots): 90 days of
 * humans, unique visitors, bots by name and every breakdown for a few links, written straight into the
 * rollup tables the statistics read (`link_stats_daily`, `account_stats_daily`, `account_link_daily`,
 * `domain_visits_daily`) as the visitor side's writes leave them — the days before today; today's visits
 * go through the real redirect. Deterministic (a seeded generator), with a weekly rhythm, slow growth, a campaign spike and
 * days without a single visit, so the chart has all of them to draw.
 */

type Share = readonly [string, number];
const COUNTRIES: Share[] = [
  ["US", 34],
  ["DE", 15],
  ["GB", 10],
  ["FR", 8],
  ["IN", 7],
  ["BR", 5],
  ["CA", 5],
  ["NL", 4],
  ["JP", 3],
  ["ES", 3],
  ["", 6],
];
const PLATFORMS: Share[] = [
  ["Windows", 31],
  ["iOS", 27],
  ["Android", 22],
  ["OS X", 13],
  ["Linux", 5],
  ["Chrome OS", 2],
];
const BROWSERS: Share[] = [
  ["Chrome", 44],
  ["Mobile Safari", 22],
  ["Safari", 9],
  ["Firefox", 8],
  ["Edge", 8],
  ["Samsung Internet", 5],
  ["Opera", 4],
];
const DEVICES: Share[] = [
  ["desktop", 49],
  ["mobile", 45],
  ["tablet", 6],
];
const LANGUAGES: Share[] = [
  ["en", 52],
  ["de", 16],
  ["fr", 9],
  ["es", 7],
  ["pt", 6],
  ["ja", 4],
  ["", 6],
];
const REFERRERS: Share[] = [
  ["", 38],
  ["t.co", 16],
  ["www.google.com", 14],
  ["news.ycombinator.com", 10],
  ["www.linkedin.com", 9],
  ["l.facebook.com", 7],
  ["mastodon.social", 6],
];
const BOTS: Share[] = [
  ["Slackbot", 24],
  ["Googlebot", 18],
  ["Twitterbot", 14],
  ["facebookexternalhit", 12],
  ["LinkedInBot", 9],
  ["Microsoft Office preview", 8],
  ["Prefetch", 7],
  ["HEAD request", 5],
  ["No User-Agent", 3],
];
const ALIASES: Share[] = [
  ["wp-login.php", 30],
  ["spring", 22],
  [".env", 15],
  ["sale2025", 12],
  ["admin", 11],
  ["Spring-Sale", 10],
];
const DIMENSIONS = { country: COUNTRIES, platform: PLATFORMS, browser: BROWSERS, device: DEVICES, language: LANGUAGES, referrer: REFERRERS } as const;

/** mulberry32: a small seeded generator, so every run draws the same history. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `total` split by shares, exactly (largest remainders), dropping zeros. */
function split(total: number, shares: readonly Share[]): Array<[string, number]> {
  const sum = shares.reduce((s, [, w]) => s + w, 0);
  const parts = shares.map(([value, w]) => ({ value, exact: (total * w) / sum }));
  const counts = parts.map((p) => Math.floor(p.exact));
  let rest = total - counts.reduce((s, c) => s + c, 0);
  const order = parts.map((p, i) => ({ i, frac: p.exact - Math.floor(p.exact) })).sort((a, b) => b.frac - a.frac);
  for (const { i } of order) {
    if (rest <= 0) break;
    counts[i] = (counts[i] ?? 0) + 1;
    rest -= 1;
  }
  return parts.map((p, i): [string, number] => [p.value, counts[i] ?? 0]).filter(([, c]) => c > 0);
}

const dayBefore = (today: string, n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

export type SeededDay = { day: string; humans: number; unique: number; bots: number };
export type SeedResult = { perLink: Map<number, SeededDay[]>; account: SeededDay[]; orphans: { index: number; not_found: number; disabled: number; expired: number; bots: number } };

/**
 * Writes the history of `links` (each with a relative `weight`; a link with `quiet` has some days
 * without visits) for the `days` days before `today`, and orphan visits of `domainId`.
 */
export async function seedAnalyticsHistory(
  db: Db,
  options: { workspaceId: number; today: string; days: number; links: Array<{ id: number; weight: number; quiet?: boolean }>; domainId: number },
): Promise<SeedResult> {
  const next = random(29);
  const linkRows: Array<typeof linkStatsDaily.$inferInsert> = [];
  const accountLinkRows: Array<typeof accountLinkDaily.$inferInsert> = [];
  const account = new Map<string, number>();
  const addAccount = (dimension: string, day: string, value: string, count: number) => {
    const key = `${dimension}\u0000${day}\u0000${value}`;
    account.set(key, (account.get(key) ?? 0) + count);
  };
  const perLink = new Map<number, SeededDay[]>();
  const accountDays = new Map<string, SeededDay>();

  for (const link of options.links) {
    const series: SeededDay[] = [];
    for (let n = options.days; n >= 1; n -= 1) {
      const day = dayBefore(options.today, n);
      const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
      const weekly = weekday === 0 || weekday === 6 ? 0.55 : 1;
      const growth = 0.6 + (0.8 * (options.days - n)) / options.days;
      const spike = n >= 18 && n <= 21 ? 2.6 - Math.abs(n - 19.5) * 0.45 : 1;
      let humans = Math.round(link.weight * weekly * growth * spike * (0.75 + next() * 0.5));
      if (link.quiet && (n % 9 === 0 || n % 13 === 0)) humans = 0;
      const unique = Math.round(humans * (0.7 + next() * 0.15));
      const bots = humans === 0 && link.quiet ? 0 : Math.round(humans * 0.18 + next() * 4);
      series.push({ day, humans, unique, bots });
      const total = accountDays.get(day) ?? { day, humans: 0, unique: 0, bots: 0 };
      accountDays.set(day, { day, humans: total.humans + humans, unique: total.unique + unique, bots: total.bots + bots });

      const rows: Array<[string, string, number]> = [];
      if (humans > 0) {
        rows.push(["clicks", "", humans], ["unique", "", unique]);
        // Hours of the day (first and last click of the summary read them): a working day's spread.
        for (const [hour, count] of split(humans, [
          ["08", 2],
          ["11", 4],
          ["14", 5],
          ["17", 4],
          ["21", 2],
        ]))
          rows.push(["clicks_hour", hour, count]);
        for (const [dimension, shares] of Object.entries(DIMENSIONS)) for (const [value, count] of split(humans, shares)) rows.push([dimension, value, count]);
      }
      for (const [value, count] of split(bots, BOTS)) rows.push(["bots", value, count]);
      for (const [dimension, value, count] of rows) {
        linkRows.push({ linkId: link.id, dimension: dimension as never, day, value, count });
        if (dimension === "clicks_hour") continue;
        addAccount(dimension, day, value, count);
      }
      if (humans > 0) accountLinkRows.push({ workspaceId: options.workspaceId, day, linkId: link.id, count: humans });
    }
    perLink.set(link.id, series);
  }

  const orphanRows: Array<typeof domainVisitsDaily.$inferInsert> = [];
  const orphans = { index: 0, not_found: 0, disabled: 0, expired: 0, bots: 0 };
  for (let n = options.days; n >= 1; n -= 1) {
    const day = dayBefore(options.today, n);
    const counts = {
      index: Math.round(2 + next() * 6),
      not_found: Math.round(next() * 9),
      disabled: n % 4 === 0 ? Math.round(next() * 3) : 0,
      expired: n < 30 ? Math.round(next() * 4) : 0,
      bots: Math.round(3 + next() * 10),
    };
    if (n % 11 === 0) Object.assign(counts, { index: 0, not_found: 0, disabled: 0, expired: 0, bots: 0 });
    for (const [kind, count] of Object.entries(counts)) {
      if (count === 0) continue;
      orphans[kind as keyof typeof orphans] += count;
      orphanRows.push({ domainId: options.domainId, kind: kind as never, day, value: "", count });
    }
    for (const [value, count] of split(counts.not_found, ALIASES)) orphanRows.push({ domainId: options.domainId, kind: "alias", day, value, count });
  }

  const accountRows = [...account].map(([key, count]) => {
    const [dimension = "", day = "", value = ""] = key.split("\u0000");
    return { workspaceId: options.workspaceId, dimension: dimension as never, day, value, count };
  });
  for (let i = 0; i < linkRows.length; i += 1000) await db.insert(linkStatsDaily).values(linkRows.slice(i, i + 1000));
  for (let i = 0; i < accountRows.length; i += 1000) await db.insert(accountStatsDaily).values(accountRows.slice(i, i + 1000));
  for (let i = 0; i < accountLinkRows.length; i += 1000) await db.insert(accountLinkDaily).values(accountLinkRows.slice(i, i + 1000));
  for (let i = 0; i < orphanRows.length; i += 1000) await db.insert(domainVisitsDaily).values(orphanRows.slice(i, i + 1000));
  return { perLink, account: [...accountDays.values()].sort((a, b) => a.day.localeCompare(b.day)), orphans };
}

/** The sums of a seeded series over the days from `from` to `to` (both included). */
export function sumDays(series: readonly SeededDay[], from: string, to: string): { humans: number; unique: number; bots: number } {
  return series.filter((d) => d.day >= from && d.day <= to).reduce((t, d) => ({ humans: t.humans + d.humans, unique: t.unique + d.unique, bots: t.bots + d.bots }), { humans: 0, unique: 0, bots: 0 });
}

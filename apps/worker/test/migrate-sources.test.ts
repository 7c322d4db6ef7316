import { afterEach, describe, expect, it } from "vitest";
import { createBitlySource } from "../src/migrate/bitly.ts";
import { createDubSource } from "../src/migrate/dub.ts";
import { createSourceHttp } from "../src/migrate/http.ts";
import { createKuttSource } from "../src/migrate/kutt.ts";
import { createShlinkSource } from "../src/migrate/shlink.ts";
import { SourceError, type Source, type SourceLink, type SourceOptions } from "../src/migrate/source.ts";
import { SOURCES } from "../src/migrate/sources.ts";
import { createYourlsSource } from "../src/migrate/yourls.ts";
import { startBitlyFake } from "./fake-sources/bitly.ts";
import { startDubFake } from "./fake-sources/dub.ts";
import type { Fake, FakeAnswer, FakeRequest } from "./fake-sources/http-fake.ts";
import { startKuttFake } from "./fake-sources/kutt.ts";
import { seeds, type Quirks, type Seed } from "./fake-sources/seed.ts";
import { startShlinkFake } from "./fake-sources/shlink.ts";
import { startYourlsFake } from "./fake-sources/yourls.ts";

/**
 * The live sources of `importer migrate` (CONTRACT §23) against fakes that answer as each service's API
 * reference says (test/fake-sources/*.ts name the reference each follows). `drain` plays the runner: it
 * reads page after page and refuses a cursor it has already seen.
 */

const KEY = "the-right-key";
const fakes: Fake[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

function source(create: (options: SourceOptions) => Source, url: string, key = KEY): Source {
  return create({ url, key, http: createSourceHttp({ baseUrl: url, tries: 4, baseDelayMs: 1, maxDelayMs: 20 }) });
}

async function drain(src: Source, maxPages = 500) {
  const links: SourceLink[] = [];
  const totals: (number | undefined)[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  for (let pages = 1; pages <= maxPages; pages++) {
    const page = await src.page(cursor);
    links.push(...page.links);
    totals.push(page.total);
    if (page.next === null) return { links, totals, pages };
    if (seen.has(page.next)) throw new Error(`the source's pages repeat: cursor ${page.next} was seen before`);
    seen.add(page.next);
    cursor = page.next;
  }
  throw new Error(`no end after ${maxPages} pages`);
}

type Case = {
  name: string;
  create: (options: SourceOptions) => Source;
  /** Seeds for a run that takes several pages. */
  count: number;
  start: (o: { key: string; links: Seed[]; quirks?: Quirks }) => Promise<Fake>;
  /** The `--url` an operator gives for the fake. */
  base: (fake: Fake) => string;
  listPath: (request: FakeRequest) => boolean;
  refused: number;
  /** The service's own 429 answer. */
  tooMany: FakeAnswer;
  /** What of a seed comes back, in SourceLink terms. */
  expected: (seed: Seed) => Partial<SourceLink>;
  /** A record of the service's shape with every field of the wrong type. */
  wrongTypes: Record<string, unknown>;
  /** The source says how many links it has. */
  hasTotal: boolean;
  prepare?: (links: Seed[]) => Seed[];
};

/** The per-day clicks a Bitly seed holds: its total split over two days. */
function days(clicks: number): Record<string, number> {
  const byDay: Record<string, number> = {};
  if (clicks > 1) byDay["2024-02-01"] = clicks - 1;
  if (clicks > 0) byDay["2024-02-03"] = 1;
  return byDay;
}

const CASES: Case[] = [
  {
    name: "shlink",
    create: createShlinkSource,
    count: 230,
    start: ({ key, links, quirks }) => startShlinkFake({ key, links, quirks }),
    base: (fake) => fake.url,
    listPath: (r) => r.path === "/rest/v3/short-urls",
    refused: 401,
    tooMany: { status: 429, text: "<html>429 Too Many Requests</html>", headers: { "retry-after": "0" } },
    expected: (s) => ({ alias: s.alias, url: s.url, title: s.title, createdAt: s.createdAt, clicks: s.clicks, tags: s.tags, domain: s.domain }),
    wrongTypes: { shortCode: 5, longUrl: ["x"], tags: "t", dateCreated: 7, visitsSummary: "n", meta: [], domain: 1, title: {} },
    hasTotal: true,
  },
  {
    name: "yourls",
    create: createYourlsSource,
    count: 230,
    start: ({ key, links, quirks }) => startYourlsFake({ signature: key, links, quirks }),
    base: (fake) => `${fake.url}/yourls`,
    listPath: (r) => r.path === "/yourls/yourls-api.php",
    refused: 403,
    tooMany: { status: 429, text: "Too Many Requests", headers: { "retry-after": "0" } },
    expected: (s) => ({ alias: s.alias, url: s.url, title: s.title ?? "", createdAt: s.createdAt, clicks: s.clicks }),
    wrongTypes: { shorturl: 5, url: null, title: 3, timestamp: "yesterday", clicks: "-4" },
    hasTotal: true,
  },
  {
    name: "kutt",
    create: createKuttSource,
    count: 120,
    start: ({ key, links, quirks }) => startKuttFake({ key, links, quirks }),
    base: (fake) => fake.url,
    listPath: (r) => r.path === "/api/v2/links",
    refused: 401,
    tooMany: {
      status: 429,
      json: { error: "Too many requests, please try again later." },
      headers: { "retry-after": "1", "ratelimit-limit": "100", "ratelimit-remaining": "0", "ratelimit-reset": "1" },
    },
    expected: (s) => ({ alias: s.alias, url: s.url, title: s.title, createdAt: s.createdAt, clicks: s.clicks, domain: s.domain }),
    wrongTypes: { address: ["a"], target: 1, created_at: false, visit_count: 1.5, password: "yes", description: 9, expire_in: 5 },
    hasTotal: true,
  },
  {
    name: "dub",
    create: createDubSource,
    count: 230,
    start: ({ key, links, quirks }) => startDubFake({ key, links, quirks }),
    base: (fake) => fake.url,
    listPath: (r) => r.path === "/links",
    refused: 401,
    tooMany: {
      status: 429,
      json: { error: { code: "rate_limit_exceeded", message: "Too many requests.", doc_url: "https://dub.co/docs/api-reference/errors#rate-limit-exceeded" } },
      // Dub's Retry-After holds the reset moment in epoch milliseconds (lib/auth/rate-limit-request.ts): the client waits its cap.
      headers: { "retry-after": String(Date.now() + 60_000), "x-ratelimit-limit": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Date.now() + 60_000) },
    },
    expected: (s) => ({ alias: s.alias, url: s.url, title: s.title, createdAt: s.createdAt, clicks: s.clicks, tags: s.tags, domain: s.domain ?? "dub.sh" }),
    wrongTypes: { key: null, url: 3, tags: "x", createdAt: [], clicks: "many", geo: "US", password: 1234 },
    hasTotal: false,
  },
  {
    name: "bitly",
    create: createBitlySource,
    count: 230,
    start: ({ key, links, quirks }) => startBitlyFake({ token: key, links, quirks }),
    base: (fake) => fake.url,
    listPath: (r) => r.path.endsWith("/bitlinks"),
    refused: 403,
    tooMany: { status: 429, json: { message: "RATE_LIMIT_EXCEEDED", resource: "bitlinks", description: "You have exceeded your rate limit." } },
    expected: (s) => ({
      alias: s.alias,
      url: s.url,
      title: s.title,
      createdAt: s.createdAt,
      clicks: s.clicks,
      tags: s.tags,
      domain: s.domain ?? "bit.ly",
      ...(s.clicks > 0 ? { clicksByDay: days(s.clicks) } : {}),
    }),
    wrongTypes: { id: 77, long_url: { a: 1 }, tags: [1, "ok"], created_at: 0, custom_bitlinks: "no" },
    hasTotal: true,
    prepare: (links) => links.map((seed) => ({ ...seed, clicksByDay: days(seed.clicks) })),
  },
];

function byAlias(links: readonly SourceLink[]): SourceLink[] {
  return [...links].sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0));
}

describe("the registry", () => {
  it("names the five live sources of this branch, each a factory making a source of that name", () => {
    for (const name of ["shlink", "yourls", "kutt", "dub", "bitly"]) {
      const factory = SOURCES[name];
      expect(factory, name).toBeTypeOf("function");
      expect(factory?.({ url: "http://127.0.0.1:9", key: "k", http: createSourceHttp({ baseUrl: "http://127.0.0.1:9" }) }).name).toBe(name);
    }
  });
});

describe.each(CASES)("$name", (c) => {
  async function fakeWith(links: Seed[], quirks?: Quirks) {
    const fake = await c.start({ key: KEY, links: c.prepare ? c.prepare(links) : links, quirks });
    fakes.push(fake);
    return fake;
  }

  it("pages through every link and carries what the source holds", async () => {
    const links = seeds(c.count);
    const fake = await fakeWith(links);
    const run = await drain(source(c.create, c.base(fake)));
    expect(run.pages).toBeGreaterThan(1);
    expect(run.links).toHaveLength(c.count);
    const got = byAlias(run.links);
    links.forEach((seed, i) => expect(got[i], seed.alias).toMatchObject(c.expected(seed)));
    expect(got.every((link) => link.notes === undefined)).toBe(true);
    if (c.hasTotal) expect(run.totals[0]).toBe(c.count);
  });

  it("stops with a SourceError naming the key when the source refuses it", async () => {
    const fake = await fakeWith(seeds(3));
    const error = await source(c.create, c.base(fake), "a-wrong-key")
      .page(null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).status).toBe(c.refused);
    expect((error as SourceError).message).toMatch(/--key/);
  });

  it("waits out the source's 429s and 5xx and then goes on", async () => {
    const links = seeds(c.count);
    const fake = await fakeWith(links);
    fake.failNext(2, c.tooMany, c.listPath);
    const run1 = await drain(source(c.create, c.base(fake)));
    expect(run1.links).toHaveLength(c.count);
    expect(fake.requests.filter(c.listPath).length).toBe(run1.pages + 2);

    fake.failNext(2, { status: 502, text: "Bad Gateway" }, c.listPath);
    fake.failNext(1, { status: 503, text: "Service Unavailable", headers: { "retry-after": "0" } }, c.listPath);
    const run2 = await drain(source(c.create, c.base(fake)));
    expect(byAlias(run2.links).map((l) => l.alias)).toEqual(links.map((l) => l.alias));
  });

  it("gives up with a SourceError once the retries run out, handing back no page", async () => {
    const fake = await fakeWith(seeds(3));
    fake.failNext(50, { status: 500, text: "boom" }, c.listPath);
    const error = await source(c.create, c.base(fake))
      .page(null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toMatch(/still failed after 4 tries \(last: 500\)/);
  });

  it("never makes up new cursors for a source whose pages loop: the run stops", async () => {
    const fake = await fakeWith(seeds(c.count), { stuck: true });
    await expect(drain(source(c.create, c.base(fake)))).rejects.toThrow(/repeat/);
  });

  // Dub gives no total to lie about.
  if (c.hasTotal)
    it("carries what is there when the source lies about its total, and reports the claim", async () => {
      for (const claim of [c.count * 10, 3]) {
        const fake = await fakeWith(seeds(c.count), { claimTotal: claim });
        const run = await drain(source(c.create, c.base(fake)));
        expect(run.links).toHaveLength(c.count);
        expect(run.totals[0]).toBe(claim);
      }
    });

  it("passes hostile values on as they are (the import pipeline refuses them)", async () => {
    const huge = "x".repeat(200_000);
    const [base] = seeds(1, "h") as [Seed];
    const hostile: Seed[] = [
      { ...base, alias: "h-js", url: "javascript:alert(document.cookie)", title: "<script>alert(1)</script>" },
      { ...base, alias: "h-ctl", url: "https://example.com/\u0000\u0007\u001b[31m", title: "bell\u0007nul\u0000esc\u001b" },
      { ...base, alias: "h-huge", url: `https://example.com/${huge}`, title: huge },
      { ...base, alias: "h-rtl", url: "https://example.com/\u202e", title: "\u202egnp.exe", tags: ["\u0000", "<b>"] },
    ];
    const fake = await fakeWith(hostile);
    const run = await drain(source(c.create, c.base(fake)));
    const got = byAlias(run.links);
    for (const seed of hostile) {
      const link = got.find((l) => l.alias === seed.alias);
      expect(link?.url, seed.alias).toBe(seed.url);
      expect(link?.title ?? "", seed.alias).toBe(seed.title ?? "");
    }
  });

  it("turns odd JSON into per-link notes, never a TypeError", async () => {
    const raw = [null, "a string", 42, [], {}, c.wrongTypes];
    const fake = await fakeWith([], { raw });
    const page = await source(c.create, c.base(fake)).page(null);
    expect(page.links).toHaveLength(raw.length);
    for (const link of page.links) {
      expect(typeof link.alias).toBe("string");
      expect(typeof link.url).toBe("string");
      expect(link.notes?.length, JSON.stringify(link)).toBeGreaterThan(0);
    }
  });

  it("answers a SourceError, not a TypeError, when a whole page has the wrong shape", async () => {
    const fake = await fakeWith(seeds(3));
    for (const json of ["oops", null, 12]) {
      fake.failNext(1, { status: 200, json }, c.listPath);
      const error = await source(c.create, c.base(fake))
        .page(null)
        .catch((e: unknown) => e);
      expect(error, JSON.stringify(json)).toBeInstanceOf(SourceError);
    }
    fake.failNext(1, { status: 200, text: "<html>not json</html>" }, c.listPath);
    await expect(source(c.create, c.base(fake)).page(null)).rejects.toThrow(/not JSON/);
  });

  it("refuses a stored cursor it did not write", async () => {
    const fake = await fakeWith(seeds(3));
    await expect(source(c.create, c.base(fake)).page("not-a-cursor-of-mine")).rejects.toBeInstanceOf(SourceError);
  });
});

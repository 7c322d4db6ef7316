import { execFileSync } from "node:child_process";
import { Resolver } from "node:dns/promises";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLink, createWebhook, getLink, updateLink, type EventData, type Link } from "@shortener/core";
import { createTestUser, freePort, insertTestDomain, openTestDb, startTestDns, type TestDns, type TestUser } from "@shortener/core/testing";
import { links, webhookEvents, type Database } from "@shortener/db";
import { batchSizeFor, createHealthChecker, DEFAULT_HEALTH_CONFIG, type HealthChecker, type HealthCheckerConfig, type Lookup } from "../src/index.ts";
import { startDestination, type Destination, type Reply } from "./destinations.ts";
import { quietLog } from "./helpers.ts";

/**
 * Destination health (CONTRACT §25) against real HTTP servers on loopback: what a look finds, HEAD then
 * GET, redirects, once a day, the per-host spacing, the SSRF guard, the DNS, several workers sharing the
 * queue, and `link.broken` written only when a link becomes broken. Batches run through `runOnce`; the
 * clock is injected (a day passes in a line).
 */
let database: Database;
let user: TestUser;
let domainId: number;
let dns: TestDns;
const destinations: Destination[] = [];
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);

/** The link JSON's health part, as `link.broken`'s data (the launcher passes the API's whole link JSON). */
const events: EventData = {
  link: (l) => ({ id: l.id, url: l.url, health: l.health, health_reason: l.healthReason }),
  importJob: (job) => job,
};

beforeAll(async () => {
  database = await openTestDb();
  user = await createTestUser(database.db, { now });
  domainId = (await insertTestDomain(database.db, user.workspaceId)).id;
  await createWebhook({ ctx: user.ctx, input: { url: "http://127.0.0.1:9/hook", events: ["link.broken"] }, options: { allowPrivateTargets: true } });
  dns = await startTestDns();
});
afterAll(async () => {
  await Promise.all(destinations.map((d) => d.close()));
  await dns?.close();
  await database?.close();
});
beforeEach(async () => {
  // Each test sees only its own links in the queue.
  offsetMs = 0;
  await database.db.delete(links);
  await database.db.delete(webhookEvents);
});

async function destination(plan: (req: IncomingMessage) => Reply | Promise<Reply>, host?: string): Promise<Destination> {
  const d = await startDestination(plan, host);
  destinations.push(d);
  return d;
}

const FAST: Partial<HealthCheckerConfig> = { allowPrivate: true, timeoutMs: 1000, hostRatePerSecond: 50 };

function checker(config: Partial<HealthCheckerConfig> = {}, lookup?: Lookup): HealthChecker {
  return createHealthChecker({ database, now, log: quietLog, events, config: { ...FAST, ...config }, ...(lookup ? { lookup } : {}) });
}

async function withChecker<T>(config: Partial<HealthCheckerConfig>, fn: (c: HealthChecker) => Promise<T>, lookup?: Lookup): Promise<T> {
  const c = checker(config, lookup);
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

async function link(url: string): Promise<Link> {
  return createLink({ ctx: user.ctx, input: { url, domain_id: domainId } });
}

const read = (id: number) => getLink({ ctx: user.ctx, id });
const brokenEvents = async () =>
  (
    await database.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.workspaceId, user.workspaceId), eq(webhookEvents.type, "link.broken")))
  ).map((e) => e.data as { id: number; health_reason: string });

describe("destination health", () => {
  it("flags what is broken, with the reason, and leaves what works ok", async () => {
    const ok = await destination(() => ({ status: 200 }));
    const missing = await destination(() => ({ status: 404 }));
    const failing = await destination(() => ({ status: 503 }));
    const hung = await destination(() => "hang");
    const closedPort = await freePort();
    const cases = [
      [await link(`${ok.url}/page`), "ok", null],
      [await link(`${missing.url}/gone`), "broken", "HTTP 404"],
      [await link(`${failing.url}/`), "broken", "HTTP 503"],
      [await link(`${hung.url}/slow`), "broken", "timeout"],
      [await link(`http://127.0.0.1:${closedPort}/`), "broken", "connection refused"],
    ] as const;
    const run = await withChecker({ timeoutMs: 400 }, (c) => c.runOnce(100));
    expect(run.claimed).toBe(5);
    for (const [l, health, reason] of cases) {
      const stored = await read(l.id);
      expect([l.url, stored.health, stored.healthReason]).toEqual([l.url, health, reason]);
      expect(stored.healthCheckedAt).toBeInstanceOf(Date);
    }
    expect(new Set(run.broken)).toEqual(new Set(cases.filter(([, h]) => h === "broken").map(([l]) => l.id)));
    // The 404 was asked with HEAD, and again with GET before being called broken; the body is never needed.
    expect(missing.hits.map((h) => [h.method, h.path])).toEqual([
      ["HEAD", "/gone"],
      ["GET", "/gone"],
    ]);
    expect(ok.hits.map((h) => h.method)).toEqual(["HEAD"]);
  });

  it("a certificate nobody vouches for (self-signed) is broken: TLS", async () => {
    const dir = mkdtempSync(join(tmpdir(), "health-tls-"));
    try {
      // A real certificate made by Debian's openssl, served by node's https server on loopback.
      execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-subj", "/CN=127.0.0.1", "-days", "1"], {
        stdio: "ignore",
      });
      const server = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (_req, res) => res.writeHead(200).end());
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      try {
        const l = await link(`https://127.0.0.1:${(server.address() as AddressInfo).port}/secure`);
        await withChecker({}, (c) => c.runOnce(10));
        const stored = await read(l.id);
        expect([stored.health, stored.healthReason]).toEqual(["broken", "TLS"]);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ["405", 405],
    ["501", 501],
    ["404 to HEAD only", 404],
  ])("HEAD refused (%s): GET decides, and it is ok", async (_name, headStatus) => {
    const d = await destination((req) => ({ status: req.method === "HEAD" ? headStatus : 200 }));
    const l = await link(`${d.url}/x?q=1`);
    await withChecker({}, (c) => c.runOnce(10));
    expect(d.hits.map((h) => [h.method, h.path])).toEqual([
      ["HEAD", "/x?q=1"],
      ["GET", "/x?q=1"],
    ]);
    expect((await read(l.id)).health).toBe("ok");
  });

  it("401, 403 and 429 mean the server is there: ok", async () => {
    for (const status of [401, 403, 429]) {
      const d = await destination(() => ({ status }));
      const l = await link(`${d.url}/`);
      await withChecker({}, (c) => c.runOnce(10));
      expect([status, (await read(l.id)).health]).toEqual([status, "ok"]);
    }
  });

  it("follows redirects, each hop through the guard: to a 404, in a loop, to an app's scheme", async () => {
    const target = await destination(() => ({ status: 404 }));
    const hop = await destination((req) => ({ status: 301, headers: { location: req.url === "/app" ? "myapp://open/1" : `${target.url}/moved` } }));
    const loop = await destination((req) => ({ status: 302, headers: { location: `/again${req.url ?? ""}`.slice(0, 200) } }));
    const [toMissing, looping, toApp] = [await link(`${hop.url}/old`), await link(`${loop.url}/a`), await link(`${hop.url}/app`)];
    await withChecker({}, (c) => c.runOnce(10));
    expect([(await read(toMissing.id)).health, (await read(toMissing.id)).healthReason]).toEqual(["broken", "HTTP 404"]);
    expect(target.hits.map((h) => [h.method, h.path])).toEqual([
      ["HEAD", "/moved"],
      ["GET", "/moved"],
    ]);
    expect([(await read(looping.id)).health, (await read(looping.id)).healthReason]).toEqual(["broken", "too many redirects"]);
    // Five redirects followed (six requests), then no more.
    expect(loop.hits.length).toBe(DEFAULT_HEALTH_CONFIG.maxRedirects + 1);
    expect((await read(toApp.id)).health).toBe("ok");
  });

  it("looks at a link at most once a day: again only when a day has passed", async () => {
    const d = await destination(() => ({ status: 200 }));
    const l = await link(`${d.url}/daily`);
    await withChecker({}, async (c) => {
      expect((await c.runOnce(10)).claimed).toBe(1);
      const first = await read(l.id);
      expect((await c.runOnce(10)).claimed).toBe(0);
      offsetMs = 23 * 3_600_000;
      expect((await c.runOnce(10)).claimed).toBe(0);
      offsetMs = 24 * 3_600_000 + 60_000;
      expect((await c.runOnce(10)).claimed).toBe(1);
      const second = await read(l.id);
      expect(second.healthCheckedAt?.getTime()).toBeGreaterThan((first.healthCheckedAt?.getTime() ?? 0) + 24 * 3_600_000);
    });
    expect(d.hits.map((h) => h.method)).toEqual(["HEAD", "HEAD"]);
  });

  it("a changed url is unchecked again and looked at next; the same url sent again keeps its health", async () => {
    const missing = await destination(() => ({ status: 404 }));
    const ok = await destination(() => ({ status: 200 }));
    const l = await link(`${missing.url}/x`);
    await withChecker({}, (c) => c.runOnce(10));
    expect((await read(l.id)).health).toBe("broken");
    await updateLink({ ctx: user.ctx, id: l.id, input: { url: `${missing.url}/x` } });
    expect((await read(l.id)).health).toBe("broken");
    const changed = await updateLink({ ctx: user.ctx, id: l.id, input: { url: `${ok.url}/fixed` } });
    expect([changed.health, changed.healthReason, changed.healthCheckedAt]).toEqual(["unchecked", null, null]);
    // Due at once, not in a day.
    await withChecker({}, (c) => c.runOnce(10));
    expect((await read(l.id)).health).toBe("ok");
  });

  it("a link made a moment ago is due at once, even to a worker whose clock is a little behind the database's", async () => {
    const ok = await destination(() => ({ status: 200 }));
    const made = await link(`${ok.url}/new`);
    // The link is due at the database's now() (microseconds); a clock 1 s behind stands for a millisecond
    // clock read within the same millisecond, or a small skew between the worker's host and the database's.
    const behind = createHealthChecker({ database, now: () => new Date(Date.now() - 1000), log: quietLog, events, config: FAST });
    try {
      expect((await behind.runOnce(10)).claimed).toBe(1);
    } finally {
      await behind.close();
    }
    expect((await read(made.id)).health).toBe("ok");
    expect(ok.hits.map((h) => h.path)).toEqual(["/new"]);
  });

  it("announces link.broken once, when a link becomes broken — not on every look, and again after a fix", async () => {
    let status = 404;
    const d = await destination(() => ({ status }));
    const l = await link(`${d.url}/flaky`);
    const day = async (c: HealthChecker) => {
      await c.runOnce(10);
      offsetMs += 24 * 3_600_000 + 60_000;
    };
    await withChecker({}, async (c) => {
      await day(c); // unchecked → broken: announced
      await day(c); // broken → broken: not again
      status = 200;
      await day(c); // → ok
      status = 500;
      await day(c); // ok → broken: announced
    });
    expect((await brokenEvents()).map((e) => [e.id, e.health_reason])).toEqual([
      [l.id, "HTTP 404"],
      [l.id, "HTTP 500"],
    ]);
  });

  it("spaces requests to one host, and does not hold another host back", async () => {
    const a = await destination(() => ({ status: 200 }), "127.0.0.1");
    const b = await destination(() => ({ status: 200 }), "127.0.0.2");
    for (let i = 0; i < 6; i++) await link(`${a.url}/a${i}`);
    for (let i = 0; i < 2; i++) await link(`${b.url}/b${i}`);
    // 4 a second to a host: 250 ms between the starts of two requests to it.
    // The default 10 s timeout, not the other tests' 1 s: on a busy machine a connection can take longer than
    // that to open, and a request aborted before it is sent never reaches the server to be counted (CI saw it).
    await withChecker({ hostRatePerSecond: 4, timeoutMs: 10_000 }, (c) => c.runOnce(100));
    expect(a.hits).toHaveLength(6);
    expect(b.hits).toHaveLength(2);
    // The limiter spaces the starts 250 ms apart: 6 requests span at least 1.25 s of its schedule. A request
    // the busy event loop sent late can arrive close to the next one, so the bounds are loose: the six
    // arrive over more than 0.75 s (at once they would take milliseconds), and no three within 250 ms.
    const at = a.hits.map((h) => h.at);
    expect((at.at(-1) ?? 0) - (at[0] ?? 0)).toBeGreaterThan(750);
    for (let i = 2; i < at.length; i++) expect((at[i] ?? 0) - (at[i - 2] ?? 0)).toBeGreaterThan(250);
    // The other host was not made to wait behind the first: its first request came before the first host's third.
    expect(b.hits[0]?.at ?? Infinity).toBeLessThan(at[2] ?? 0);
  });

  it("two workers share the queue: each link is looked at once", async () => {
    const d = await destination(() => ({ status: 200 }));
    for (let i = 0; i < 12; i++) await link(`${d.url}/shared${i}`);
    const [first, second] = [checker(), checker()];
    try {
      const runs = await Promise.all([first.runOnce(8), second.runOnce(8)]);
      expect(runs[0].claimed + runs[1].claimed).toBe(12);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
    expect(d.hits.map((h) => h.path).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `/shared${i}`).sort());
  });

  it("the SSRF guard: a private or loopback destination is not looked at, and is unchecked, not broken", async () => {
    const d = await destination(() => ({ status: 200 }));
    const toPrivate: Lookup = async (hostname) => (hostname === "intranet.example" ? [{ address: "10.1.2.3", family: 4 }] : [{ address: "127.0.0.1", family: 4 }]);
    const cases = [await link(`${d.url}/literal`), await link(`http://intranet.example:${d.port}/name`), await link(`http://localhost:${d.port}/loopback-name`)];
    const run = await withChecker({ allowPrivate: false }, (c) => c.runOnce(10), toPrivate);
    expect(run.broken).toEqual([]);
    for (const l of cases) {
      const stored = await read(l.id);
      expect([stored.health, stored.healthReason]).toEqual(["unchecked", "private address"]);
      expect(stored.healthCheckedAt).toBeInstanceOf(Date);
    }
    expect(d.hits).toEqual([]);
    expect(await brokenEvents()).toEqual([]);
  });

  it("DNS: a name that does not exist is broken; a resolver that fails says nothing, and the look comes again within the hour", async () => {
    const resolver = new Resolver({ timeout: 300, tries: 1 });
    resolver.setServers([dns.server]);
    // The real resolver code against the test's DNS server (NXDOMAIN for every name it does not hold).
    const viaTestDns: Lookup = async (hostname) => (await resolver.resolve4(hostname)).map((address) => ({ address, family: 4 }));
    const l = await link("https://no-such-name.health.test/");
    await withChecker({}, (c) => c.runOnce(10), viaTestDns);
    expect([(await read(l.id)).health, (await read(l.id)).healthReason]).toEqual(["broken", "DNS"]);

    dns.setMode("servfail");
    offsetMs = 24 * 3_600_000 + 60_000;
    await withChecker({}, (c) => c.runOnce(10), viaTestDns);
    const kept = await read(l.id);
    expect([kept.health, kept.healthReason]).toEqual(["broken", "DNS"]);
    const [row] = await database.db.select({ dueAt: links.healthDueAt }).from(links).where(eq(links.id, l.id));
    expect(row?.dueAt.getTime()).toBeLessThanOrEqual(now().getTime() + 3_600_000);
    expect(row?.dueAt.getTime()).toBeGreaterThan(now().getTime() + 30 * 60_000);
    dns.setMode("answer");
  });

  it("disabled links are not taken; expired ones are put off a day without a request", async () => {
    const d = await destination(() => ({ status: 200 }));
    const disabled = await link(`${d.url}/off`);
    await updateLink({ ctx: user.ctx, id: disabled.id, input: { disabled: 1 } });
    const expired = await link(`${d.url}/expired`);
    await database.db
      .update(links)
      .set({ endsAt: new Date(Date.now() - 60_000) })
      .where(eq(links.id, expired.id));
    const run = await withChecker({}, (c) => c.runOnce(10));
    expect([run.claimed, run.checked]).toEqual([1, 0]);
    expect(d.hits).toEqual([]);
    expect((await read(expired.id)).health).toBe("unchecked");
    const [row] = await database.db.select({ dueAt: links.healthDueAt }).from(links).where(eq(links.id, expired.id));
    expect(row?.dueAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });

  it("a result for a url that changed during the look is dropped", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The destination answers 404 only once the test lets it.
    const slow = await destination(async () => {
      await gate;
      return { status: 404 };
    });
    const l = await link(`${slow.url}/old`);
    const c = checker({ timeoutMs: 10_000 });
    try {
      const running = c.runOnce(10);
      while (!slow.hits.length) await new Promise((r) => setTimeout(r, 10));
      // The url changes while the look is under way, before its result is written.
      await updateLink({ ctx: user.ctx, id: l.id, input: { url: "https://elsewhere.example/new" } });
      release();
      await running;
    } finally {
      await c.close();
    }
    const stored = await read(l.id);
    expect([stored.url, stored.health, stored.healthCheckedAt]).toEqual(["https://elsewhere.example/new", "unchecked", null]);
  });
});

describe("pacing: a day's links spread over the day", () => {
  it.each([
    [0, 10],
    [1_000, 10],
    [100_000, 15],
    [1_000_000, 145],
    [100_000_000, 1000],
  ])("%i links: %i a batch every 10 s", (population, size) => {
    expect(batchSizeFor(population, DEFAULT_HEALTH_CONFIG)).toBe(size);
  });

  it("100,000 links a day fit: batches every 10 s cover them in under a day", () => {
    const perDay = batchSizeFor(100_000, DEFAULT_HEALTH_CONFIG) * (86_400_000 / DEFAULT_HEALTH_CONFIG.intervalMs);
    expect(perDay).toBeGreaterThanOrEqual(100_000);
    expect(perDay).toBeLessThan(150_000);
  });
});

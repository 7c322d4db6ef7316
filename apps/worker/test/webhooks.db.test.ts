import { createHmac } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhook, recordEvent, updateWebhook, type WebhookEventType } from "@shortener/core";
import { createTestUser, openTestDb, type TestUser } from "@shortener/core/testing";
import { webhookAttempts, webhookDeliveries, webhookEvents, webhooks, type Database } from "@shortener/db";
import { createWebhookWorker, systemLookup, type Lookup, type WebhookWorker, type WebhookWorkerConfig } from "../src/index.ts";
import { quietLog } from "./helpers.ts";
import { startReceiver, type Receiver } from "./receiver.ts";

/**
 * The webhook worker against real receivers on loopback (CONTRACT §18): order, retries, final failure,
 * disabling, the SSRF guard after DNS, no redirects, the timeout and the body limit. Timings are the
 * injected ones (milliseconds instead of minutes).
 */
let database: Database;
const receivers: Receiver[] = [];

beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await database?.close();
});

const FAST_RETRY = { baseDelayMs: 40, maxDelayMs: 160, retryForMs: 60_000, disableAfterMs: 3 * 86_400_000 };
const FAST: Partial<WebhookWorkerConfig> = {
  // The receivers are on loopback: allowed here, as WEBHOOK_ALLOW_PRIVATE=1 would; the SSRF tests turn it off.
  allowPrivate: true,
  drainIntervalMs: 50,
  sweepIntervalMs: 200,
  pollIntervalSeconds: 0.5,
  timeoutMs: 3000,
  retry: FAST_RETRY,
};

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

async function withWorker(config: Partial<WebhookWorkerConfig>, fn: (worker: WebhookWorker) => Promise<void>, lookup?: Lookup): Promise<void> {
  const worker = createWebhookWorker({ database, now: () => new Date(), log: quietLog, config: { ...FAST, ...config, retry: { ...FAST_RETRY, ...config.retry } }, ...(lookup ? { lookup } : {}) });
  await worker.start();
  try {
    await fn(worker);
  } finally {
    await worker.close();
  }
}

async function hook(url: string, user?: TestUser, events: WebhookEventType[] = ["link.created"]) {
  const owner = user ?? (await createTestUser(database.db));
  // Created as if WEBHOOK_ALLOW_PRIVATE were on: the worker's own setting is what these tests exercise.
  const { webhook, secret } = await createWebhook({ ctx: owner.ctx, input: { url, events }, options: { allowPrivateTargets: true } });
  return { user: owner, webhook, secret };
}

async function emit(workspaceId: number, count: number, type: WebhookEventType = "link.created"): Promise<void> {
  for (let i = 0; i < count; i++) await recordEvent(database.db, { workspaceId, type, data: { n: i, "z-first": true, a: "kept in order" }, at: new Date() });
}

const attemptsOf = (webhookId: number) => database.db.select().from(webhookAttempts).where(eq(webhookAttempts.webhookId, webhookId)).orderBy(asc(webhookAttempts.id));
const deliveriesOf = (webhookId: number) => database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId)).orderBy(asc(webhookDeliveries.id));

async function until<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Stripe's scheme, recomputed here independently of the worker's code. */
function isSigned(body: string, header: string, secret: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const [, t, mac] = match;
  return Math.abs(Date.now() / 1000 - Number(t)) < 60 && createHmac("sha256", secret).update(`${t}.${body}`).digest("hex") === mac;
}

describe("the webhook worker", () => {
  it("moves the outbox into deliveries and sends them in order, signed, with the contract's headers and body", async () => {
    const rx = await receiver();
    const { user, webhook, secret } = await hook(`${rx.url}/in?token=1`);
    await emit(user.workspaceId, 5);
    await withWorker({}, async () => {
      await rx.waitFor((got) => got.length === 5);
      const deliveries = await until(async () => {
        const rows = await deliveriesOf(webhook.id);
        return rows.length === 5 && rows.every((d) => d.status === "delivered") && rows;
      });
      expect(rx.received.map((r) => r.deliveryId)).toEqual(deliveries.map((d) => String(d.id)));
      rx.received.forEach((r, i) => {
        expect(r.path).toBe("/in?token=1");
        expect(r.event).toBe("link.created");
        expect(isSigned(r.body, r.signature, secret)).toBe(true);
        expect(r.body).toBe(`{"id":${r.deliveryId},"type":"link.created","created_at":"${deliveries[i]?.eventAt.toISOString()}","data":{"n":${i},"z-first":true,"a":"kept in order"}}`);
      });
      expect((await attemptsOf(webhook.id)).map((a) => [a.number, a.isSuccess, a.responseCode, a.error, a.nextAttemptAt])).toEqual(deliveries.map(() => [1, true, 200, null, null]));
      expect(await database.db.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, user.workspaceId))).toEqual([]);
    });
  });

  it("500 three times, then 200: one success after three retries, and the events behind it wait their turn", async () => {
    let requests = 0;
    const rx = await receiver(() => (++requests <= 3 ? { status: 500, body: "try later" } : { status: 200 }));
    const { user, webhook } = await hook(rx.url);
    await emit(user.workspaceId, 3);
    await withWorker({}, async () => {
      await rx.waitFor((got) => got.length === 6);
      const [d1, d2, d3] = await until(async () => {
        const rows = await deliveriesOf(webhook.id);
        return rows.length === 3 && rows.every((d) => d.status === "delivered") && rows;
      });
      const ids = [d1, d2, d3].map((d) => String(d?.id));
      expect(rx.received.map((r) => r.deliveryId)).toEqual([ids[0], ids[0], ids[0], ids[0], ids[1], ids[2]]);
      const attempts = await attemptsOf(webhook.id);
      expect(attempts.map((a) => [String(a.deliveryId), a.number, a.isSuccess, a.responseCode, a.error, a.responseBody, a.nextAttemptAt === null])).toEqual([
        [ids[0], 1, false, 500, "HTTP 500", "try later", false],
        [ids[0], 2, false, 500, "HTTP 500", "try later", false],
        [ids[0], 3, false, 500, "HTTP 500", "try later", false],
        [ids[0], 4, true, 200, null, "ok", true],
        [ids[1], 1, true, 200, null, "ok", true],
        [ids[2], 1, true, 200, null, "ok", true],
      ]);
      // Each retry waited at least half its backoff (40, 80, 160 ms), after the failed attempt's start.
      for (let i = 0; i < 3; i++) {
        const failed = attempts[i];
        const retry = attempts[i + 1];
        expect(failed?.nextAttemptAt?.getTime()).toBeGreaterThanOrEqual((failed?.createdAt.getTime() ?? 0) + 20 * 2 ** i);
        expect(retry?.createdAt.getTime()).toBeGreaterThanOrEqual(failed?.nextAttemptAt?.getTime() ?? Infinity);
      }
      expect(d1).toMatchObject({ attempts: 4, status: "delivered", nextAttemptAt: null });
      const [stored] = await database.db.select().from(webhooks).where(eq(webhooks.id, webhook.id));
      expect(stored).toMatchObject({ failingSince: null, disabled: false });
    });
  });

  it("keeps a webhook's order whatever fails: every retry of a delivery comes before the next delivery", async () => {
    const rx = await receiver(async (_r, count) => {
      await new Promise((r) => setTimeout(r, Math.random() * 5));
      return count === 1 && Math.random() < 0.3 ? { status: 503 } : { status: 204 };
    });
    const { user, webhook } = await hook(rx.url);
    await emit(user.workspaceId, 40);
    await withWorker({}, async () => {
      const deliveries = await until(async () => {
        const rows = await deliveriesOf(webhook.id);
        return rows.length === 40 && rows.every((d) => d.status === "delivered") && rows;
      }, 60_000);
      const arrived = rx.received.map((r) => Number(r.deliveryId));
      expect(arrived).toEqual([...arrived].sort((a, b) => a - b));
      expect(rx.firstSeen()).toEqual(deliveries.map((d) => String(d.id)));
    });
  });

  it("gives a delivery up after its retry window (at least one try), then sends the next one", async () => {
    const rx = await receiver((r) => (r.body.includes('"n":0') ? { status: 503 } : { status: 200 }));
    const { user, webhook } = await hook(rx.url);
    await emit(user.workspaceId, 2);
    await withWorker({ retry: { baseDelayMs: 40, maxDelayMs: 80, retryForMs: 400, disableAfterMs: 3 * 86_400_000 } }, async () => {
      const [first, second] = await until(async () => {
        const rows = await deliveriesOf(webhook.id);
        return rows[1]?.status === "delivered" && rows;
      });
      expect(first).toMatchObject({ status: "failed", nextAttemptAt: null });
      expect(first?.finishedAt).not.toBeNull();
      const attempts = (await attemptsOf(webhook.id)).filter((a) => a.deliveryId === first?.id);
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      expect(attempts.every((a) => !a.isSuccess && a.responseCode === 503)).toBe(true);
      expect(attempts.at(-1)?.nextAttemptAt).toBeNull();
      expect(attempts.slice(0, -1).every((a) => a.nextAttemptAt !== null)).toBe(true);
      // Tries went on until one ended past the window (400 ms after the delivery was queued); only the last did.
      const endOf = (a: (typeof attempts)[number] | undefined) => (a?.createdAt.getTime() ?? 0) + (a?.durationMs ?? 0);
      const deadline = (first?.createdAt.getTime() ?? 0) + 400;
      expect(endOf(attempts.at(-1))).toBeGreaterThanOrEqual(deadline);
      expect(attempts.slice(0, -1).every((a) => endOf(a) < deadline)).toBe(true);
      const ids = rx.received.map((r) => r.deliveryId);
      expect(ids.lastIndexOf(String(first?.id))).toBeLessThan(ids.indexOf(String(second?.id)));
      expect(second?.attempts).toBe(1);
    });
  });

  it("disables a webhook failing for too long, keeps its deliveries pending, and sends them once it is enabled again", async () => {
    let isUp = false;
    const rx = await receiver(() => (isUp ? { status: 200 } : { status: 500 }));
    const { user, webhook } = await hook(rx.url);
    await emit(user.workspaceId, 2);
    await withWorker({ retry: { baseDelayMs: 40, maxDelayMs: 80, retryForMs: 60_000, disableAfterMs: 300 } }, async () => {
      const disabled = await until(async () => {
        const [row] = await database.db.select().from(webhooks).where(eq(webhooks.id, webhook.id));
        return row?.disabled && row;
      });
      expect(disabled.failingSince).not.toBeNull();
      const [first, second] = await deliveriesOf(webhook.id);
      expect(first).toMatchObject({ status: "pending" });
      expect(second).toMatchObject({ status: "pending", attempts: 0 });
      const tried = rx.received.length;
      await new Promise((r) => setTimeout(r, 400));
      expect(rx.received.length).toBe(tried);
      // New events are not queued for a disabled webhook.
      await emit(user.workspaceId, 1);
      await new Promise((r) => setTimeout(r, 200));
      expect(await deliveriesOf(webhook.id)).toHaveLength(2);

      isUp = true;
      await updateWebhook({ ctx: user.ctx, id: webhook.id, input: { disabled: 0 } });
      const delivered = await until(async () => {
        const rows = await deliveriesOf(webhook.id);
        return rows.length === 2 && rows.every((d) => d.status === "delivered") && rows;
      });
      expect(delivered).toHaveLength(2);
      const [after] = await database.db.select().from(webhooks).where(eq(webhooks.id, webhook.id));
      expect(after).toMatchObject({ disabled: false, failingSince: null });
    });
  });

  it("stops a webhook's lane when the webhook is deleted, and sends the other webhooks' deliveries", async () => {
    const rx = await receiver((r) => (r.path === "/doomed" ? { status: 500 } : { status: 200 }));
    const user = await createTestUser(database.db);
    const doomed = await hook(`${rx.url}/doomed`, user);
    const kept = await hook(`${rx.url}/kept`, user);
    await emit(user.workspaceId, 3);
    await withWorker({}, async () => {
      await rx.waitFor((got) => got.filter((r) => r.path === "/doomed").length >= 2);
      await database.db.delete(webhooks).where(eq(webhooks.id, doomed.webhook.id));
      const rows = await until(async () => {
        const list = await deliveriesOf(kept.webhook.id);
        return list.length === 3 && list.every((d) => d.status === "delivered") && list;
      });
      expect(rows).toHaveLength(3);
      expect(await deliveriesOf(doomed.webhook.id)).toEqual([]);
      const seen = rx.received.filter((r) => r.path === "/doomed").length;
      await new Promise((r) => setTimeout(r, 400));
      expect(rx.received.filter((r) => r.path === "/doomed").length).toBe(seen);
    });
  });
});

describe("the SSRF guard at delivery", () => {
  const names: Record<string, string[]> = {
    "loopback.example.test": ["127.0.0.1"],
    "private.example.test": ["10.0.0.5"],
    "metadata.example.test": ["169.254.169.254"],
    "cgnat.example.test": ["100.64.12.34"],
    "mapped.example.test": ["::ffff:127.0.0.1"],
    "ula.example.test": ["fd00::1"],
    "mixed.example.test": ["93.184.216.34", "10.1.1.1"],
  };
  /** The test's DNS: made-up names under example.test, the system's resolver for `localhost` only (its hosts file), no query leaves the machine. */
  const lookup: Lookup = async (host) => {
    const known = names[host];
    if (known) return known.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    if (host === "localhost") return systemLookup(host);
    if (host === "hang.example.test") return new Promise(() => {});
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  };

  it("refuses private, loopback, link-local, CGNAT, mapped and unique-local targets after resolving them, sends nothing, and records why", async () => {
    const rx = await receiver();
    const user = await createTestUser(database.db);
    const port = rx.port;
    const cases: Array<[string, RegExp]> = [
      [`http://127.0.0.1:${port}/`, /^Refused: 127\.0\.0\.1, a loopback address/],
      [`http://10.2.3.4:${port}/`, /^Refused: 10\.2\.3\.4, a private address/],
      [`http://169.254.169.254/latest/meta-data/`, /^Refused: 169\.254\.169\.254, a link-local address/],
      [`http://[::ffff:127.0.0.1]:${port}/`, /^Refused: ::ffff:7f00:1, an IPv4-mapped address/],
      [`http://localhost:${port}/`, /^Refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
      [`http://loopback.example.test:${port}/`, /^Refused: loopback\.example\.test resolves to 127\.0\.0\.1, a loopback address/],
      [`http://private.example.test:${port}/`, /resolves to 10\.0\.0\.5, a private address/],
      [`http://metadata.example.test/`, /resolves to 169\.254\.169\.254, a link-local address/],
      [`http://cgnat.example.test/`, /resolves to 100\.64\.12\.34, a shared \(CGNAT\) address/],
      [`http://mapped.example.test:${port}/`, /resolves to ::ffff:127\.0\.0\.1, an IPv4-mapped address/],
      [`http://ula.example.test/`, /resolves to fd00::1, a unique local address/],
      [`http://mixed.example.test/`, /resolves to 10\.1\.1\.1, a private address/],
      [`http://nowhere.example.test/`, /^DNS lookup of nowhere\.example\.test failed \(ENOTFOUND\)/],
      [`http://hang.example.test/`, /^DNS lookup of hang\.example\.test failed \(ETIMEOUT\)/],
    ];
    const created: Array<{ id: number }> = [];
    for (const [url] of cases) created.push((await hook(url, user)).webhook);
    await emit(user.workspaceId, 1);
    await withWorker(
      { allowPrivate: false, concurrency: 16, timeoutMs: 1000, retry: { baseDelayMs: 60_000, maxDelayMs: 60_000, retryForMs: 600_000, disableAfterMs: 3 * 86_400_000 } },
      async () => {
        const attempts = await until(async () => {
          const rows = await Promise.all(created.map((w) => attemptsOf(w.id)));
          return rows.every((r) => r.length >= 1) && rows.map((r) => r[0]);
        });
        attempts.forEach((a, i) => {
          const [url, reason] = cases[i] as [string, RegExp];
          expect([url, a?.error]).toEqual([url, expect.stringMatching(reason)]);
          expect(a).toMatchObject({ isSuccess: false, responseCode: null });
          expect(a?.nextAttemptAt).not.toBeNull();
        });
      },
      lookup,
    );
    expect(rx.received).toEqual([]);
  });

  it("with WEBHOOK_ALLOW_PRIVATE, resolves a name once per attempt and connects to the address it checked", async () => {
    const rx = await receiver();
    let lookups = 0;
    // Not a name the system resolver knows: only the checked address can have been connected to.
    const pinned: Lookup = async (host) => {
      if (host !== "pinned.example.test") throw Object.assign(new Error("unknown"), { code: "ENOTFOUND" });
      lookups++;
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const { user, webhook } = await hook(`http://pinned.example.test:${rx.port}/hook`);
    await emit(user.workspaceId, 2);
    await withWorker(
      { allowPrivate: true },
      async () => {
        await until(async () => {
          const rows = await deliveriesOf(webhook.id);
          return rows.length === 2 && rows.every((d) => d.status === "delivered");
        });
      },
      pinned,
    );
    expect(rx.received.map((r) => [r.host, r.path])).toEqual([
      [`pinned.example.test:${rx.port}`, "/hook"],
      [`pinned.example.test:${rx.port}`, "/hook"],
    ]);
    expect(lookups).toBe(2);
  });
});

describe("what a receiver answers", () => {
  it("a redirect is a failure and is not followed", async () => {
    const rx = await receiver((r) => (r.path === "/moved" ? { status: 302, headers: { location: "/target" } } : { status: 200 }));
    const { user, webhook } = await hook(`${rx.url}/moved`);
    await emit(user.workspaceId, 1);
    await withWorker({ allowPrivate: true }, async () => {
      const [attempt] = await until(async () => {
        const rows = await attemptsOf(webhook.id);
        return rows.length >= 1 && rows;
      });
      expect(attempt).toMatchObject({ isSuccess: false, responseCode: 302, error: "HTTP 302 (redirects are not followed)" });
    });
    expect(rx.received.every((r) => r.path === "/moved")).toBe(true);
  });

  it("no answer within the timeout is a failure; the attempt's duration shows it", async () => {
    const rx = await receiver(() => "hang");
    const { user, webhook } = await hook(rx.url);
    await emit(user.workspaceId, 1);
    await withWorker({ allowPrivate: true, timeoutMs: 300 }, async () => {
      const [attempt] = await until(async () => {
        const rows = await attemptsOf(webhook.id);
        return rows.length >= 1 && rows;
      });
      expect(attempt).toMatchObject({ isSuccess: false, responseCode: null, error: "Timed out after 0.3 s without a response." });
      expect(attempt?.durationMs).toBeGreaterThanOrEqual(290);
      expect(attempt?.durationMs).toBeLessThan(3000);
    });
  });

  it("reads at most 64 KiB of a response: a 2xx with an endless body is delivered, and 1,024 characters are kept", async () => {
    const huge = "y".repeat(1024 * 1024);
    const rx = await receiver((r) => (r.path === "/endless" ? "endless" : { status: 201, body: huge }));
    const user = await createTestUser(database.db);
    const endless = await hook(`${rx.url}/endless`, user);
    const big = await hook(`${rx.url}/big`, user);
    await emit(user.workspaceId, 1);
    await withWorker({ allowPrivate: true, timeoutMs: 5000 }, async () => {
      const rows = await until(async () => {
        const list = await Promise.all([attemptsOf(endless.webhook.id), attemptsOf(big.webhook.id)]);
        return list.every((l) => l.length >= 1) && list.map((l) => l[0]);
      });
      expect(rows.map((a) => [a?.isSuccess, a?.responseCode, a?.responseBody?.length])).toEqual([
        [true, 200, 1024],
        [true, 201, 1024],
      ]);
      expect(rows[0]?.durationMs).toBeLessThan(4000);
    });
  });
});

describe("several workers on one database", () => {
  it("deliver each event once and in order", async () => {
    const rx = await receiver();
    const { user, webhook } = await hook(rx.url);
    const other = createWebhookWorker({ database, now: () => new Date(), log: quietLog, config: { ...FAST, allowPrivate: true } });
    await other.start();
    try {
      await emit(user.workspaceId, 30);
      await withWorker({ allowPrivate: true }, async () => {
        await until(async () => {
          const rows = await deliveriesOf(webhook.id);
          return rows.length === 30 && rows.every((d) => d.status === "delivered");
        }, 60_000);
      });
    } finally {
      await other.close();
    }
    const ids = rx.received.map((r) => Number(r.deliveryId));
    expect(ids).toHaveLength(30);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(30);
  });
});

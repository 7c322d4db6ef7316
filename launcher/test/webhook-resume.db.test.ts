import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { asc } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookAttempts, webhookDeliveries } from "@shortener/db";
import { freePort, openSharedTestDb, type SharedTestDb } from "@shortener/db/testing";
import { spawnService, type ServiceProcess } from "./helpers.ts";

/**
 * CONTRACT §18: a worker killed mid-delivery (SIGKILL) and started again delivers every event at least
 * once, and a receiver that dedupes by `Shortener-Delivery` sees each exactly once, in order. The real
 * service (launcher, every role) runs as a child process; the receiver is on loopback (WEBHOOK_ALLOW_PRIVATE=1).
 */
const ADMIN_KEY = `shk_${"K".repeat(40)}`;
const LINKS = 12;
/** The receiver leaves this delivery (by arrival order) unanswered, and the test kills the service then. */
const HANG_AT = 4;

let shared: SharedTestDb;

beforeAll(async () => {
  shared = await openSharedTestDb();
});
afterAll(async () => {
  await shared?.close();
});

function startService(port: number): ServiceProcess {
  return spawnService({ ...shared.settings, PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, WEBHOOK_ALLOW_PRIVATE: "1", LOG_LEVEL: "warn", RATE_LIMIT_PER_MINUTE: "100000" });
}

async function until(test: () => boolean | Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function isUp(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/healthz`)).ok;
  } catch {
    return false;
  }
}

async function api(base: string, method: string, path: string, form: Record<string, string | string[]>) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const item of Array.isArray(v) ? v : [v]) body.append(k, item);
  const res = await fetch(`${base}/api/v1${path}`, { method, headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/x-www-form-urlencoded" }, body });
  return (await res.json()) as { data: Record<string, unknown> };
}

describe("a worker killed mid-delivery", () => {
  it("delivers every event after a restart: at least once, and once per Shortener-Delivery", { timeout: 300_000 }, async () => {
    const arrivals: Array<{ delivery: string; linkId: number }> = [];
    const hanging: ServerResponse[] = [];
    let isKilled = false;
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const payload = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data: { id: number } };
        arrivals.push({ delivery: String(req.headers["shortener-delivery"]), linkId: payload.data.id });
        if (!isKilled && new Set(arrivals.map((a) => a.delivery)).size === HANG_AT) hanging.push(res);
        else res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;

    try {
      const first = startService(port);
      await until(() => isUp(base), `the service to start: ${first.output()}`);
      const domains = await fetch(`${base}/api/v1/domains`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      const domainId = String(((await domains.json()) as { data: Array<{ id: number }> }).data[0]?.id);
      await api(base, "POST", "/webhooks", { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: "link.created" });
      const linkIds: number[] = [];
      for (let i = 0; i < LINKS; i++) linkIds.push((await api(base, "POST", "/links", { url: `https://example.com/${i}`, domain_id: domainId })).data.id as number);

      // The service is sending delivery HANG_AT and waiting for its answer: kill it there.
      await until(() => hanging.length === 1, "the delivery to hang");
      first.child.kill("SIGKILL");
      expect(await first.exited).toBe(null);
      isKilled = true;
      for (const res of hanging) res.destroy();
      const beforeRestart = arrivals.length;
      expect(new Set(arrivals.map((a) => a.delivery)).size).toBe(HANG_AT);

      const second = startService(port);
      await until(() => new Set(arrivals.map((a) => a.delivery)).size === LINKS, `every delivery after the restart: ${second.output()}`);
      // The worker runs before the port is open: wait for the whole service, let anything in flight arrive, then stop cleanly.
      await until(() => isUp(base), `the service to answer: ${second.output()}`);
      await new Promise((r) => setTimeout(r, 1000));
      second.child.kill("SIGTERM");
      expect(await second.exited).toBe(0);

      // At least once: the delivery in flight at the kill came again after the restart; nothing is missing.
      const hung = arrivals[HANG_AT - 1]?.delivery;
      expect(arrivals.slice(beforeRestart).some((a) => a.delivery === hung)).toBe(true);
      expect(arrivals.length).toBeGreaterThan(LINKS);
      // Exactly once for a receiver that dedupes by Shortener-Delivery, in the order the links were created.
      const deduped = new Map<string, number>();
      for (const a of arrivals) if (!deduped.has(a.delivery)) deduped.set(a.delivery, a.linkId);
      expect([...deduped.values()]).toEqual(linkIds);
      const ids = [...deduped.keys()].map(Number);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));

      await shared.withDb(async (db) => {
        const deliveries = await db.db.select().from(webhookDeliveries).orderBy(asc(webhookDeliveries.id));
        expect(deliveries.map((d) => [String(d.id), d.status])).toEqual([...deduped.keys()].map((id) => [id, "delivered"]));
        const attempts = await db.db.select().from(webhookAttempts);
        expect(attempts.every((a) => a.isSuccess && a.responseCode === 200)).toBe(true);
        expect(new Set(attempts.map((a) => String(a.deliveryId)))).toEqual(new Set(deduped.keys()));
      });
    } finally {
      for (const res of hanging) res.destroy();
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});

import { createHmac } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { freePort } from "@shortener/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiData, bootstrapDomainId, startTestServer, type TestServer } from "./helpers.ts";

/**
 * CONTRACT §25's destination health end to end, as `pnpm start` runs it: the all-in-one service with the
 * worker's health checks on (HEALTH_ALLOW_PRIVATE=1 and WEBHOOK_ALLOW_PRIVATE=1, the destinations and the
 * webhook receiver being real servers on loopback). Broken destinations — a 404, a refused connection, a
 * server that never answers — are found by the worker's own timer, flagged on the link, listed by
 * `health=broken` (REST, tRPC, export), and announced by a signed `link.broken` delivery.
 */
const ADMIN_KEY = `shk_${"H".repeat(40)}`;
let running: TestServer;
const servers: Server[] = [];
const hung = new Set<ServerResponse>();
type Delivery = { event: string; signature: string; body: string; payload: { type: string; data: Record<string, unknown> } };
const received: Delivery[] = [];

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let okUrl: string;
let missingUrl: string;
let hangUrl: string;
let refusedUrl: string;
let receiverUrl: string;

beforeAll(async () => {
  okUrl = await listen((_req, res) => res.writeHead(200).end("fine"));
  missingUrl = await listen((_req, res) => res.writeHead(404).end("not here"));
  hangUrl = await listen((_req, res) => void hung.add(res));
  refusedUrl = `http://127.0.0.1:${await freePort()}`;
  receiverUrl = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ event: String(req.headers["shortener-event"]), signature: String(req.headers["shortener-signature"]), body, payload: JSON.parse(body) as Delivery["payload"] });
      res.writeHead(204).end();
    });
  });
  running = await startTestServer({
    ADMIN_API_KEY: ADMIN_KEY,
    HEALTH_CHECKS: "on",
    HEALTH_ALLOW_PRIVATE: "1",
    HEALTH_TIMEOUT_MS: "1000",
    WEBHOOK_ALLOW_PRIVATE: "1",
    RATE_LIMIT_PER_MINUTE: "100000",
  });
});
afterAll(async () => {
  await running?.close();
  for (const res of hung) res.destroy();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function until<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 250));
  }
}

const get = async (path: string) => {
  const res = await fetch(`${running.base}${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
};

describe("destination health, end to end", () => {
  it("finds broken destinations, flags them, filters them and announces each by webhook", { timeout: 120_000 }, async () => {
    const domainId = String(bootstrapDomainId(running));
    const hook = await apiData(running.base, ADMIN_KEY, "POST", "/api/v1/webhooks", { url: `${receiverUrl}/hooks`, "events[]": "link.broken" });
    const create = (url: string, alias: string) => apiData(running.base, ADMIN_KEY, "POST", "/api/v1/links", { url, alias, domain_id: domainId });
    const fine = await create(`${okUrl}/page`, "fine");
    const missing = await create(`${missingUrl}/gone`, "missing");
    const refused = await create(`${refusedUrl}/`, "refused");
    const slow = await create(`${hangUrl}/slow`, "slow");
    expect([fine, missing, refused, slow].map((l: { health: string }) => l.health)).toEqual(["unchecked", "unchecked", "unchecked", "unchecked"]);

    // Found by the worker's own timer (a batch every 10 s), not by a call from the test.
    const broken = await until(async () => {
      const list = JSON.parse((await get("/api/v1/links?health=broken&sort=asc")).text) as { data: Array<Record<string, any>>; meta: { total: number } };
      return list.meta.total === 3 && list;
    });
    const shown = broken.data.map((l) => [l.alias, l.health, l.health_reason]);
    expect(shown).toEqual([
      ["missing", "broken", "HTTP 404"],
      ["refused", "broken", "connection refused"],
      ["slow", "broken", "timeout"],
    ]);
    for (const l of broken.data) expect(Date.parse(l.health_checked_at as string)).toBeGreaterThan(Date.parse(l.created_at as string) - 1);
    const okNow = await until(async () => {
      const l = await apiData(running.base, ADMIN_KEY, "GET", `/api/v1/links/${fine.id}`);
      return l.health === "ok" && l;
    });
    expect(okNow.health_reason).toBeNull();
    expect(JSON.parse((await get("/api/v1/links?health=ok")).text).data.map((l: { alias: string }) => l.alias)).toEqual(["fine"]);

    // tRPC: the same filter, the same objects.
    const trpc = await get(`/trpc/links.list?input=${encodeURIComponent(JSON.stringify({ health: "broken", sort: "asc" }))}`);
    expect(JSON.parse(trpc.text).result.data.data).toEqual(broken.data);

    // The export: the filter applied, the three health columns after the import's.
    const csv = await get("/api/v1/links/export?health=broken");
    const [header, ...rows] = csv.text.trim().split("\r\n");
    expect(header?.split(",").slice(-3)).toEqual(["health", "health_reason", "health_checked_at"]);
    expect(rows.map((r) => r.split(",").slice(-3, -1))).toEqual([
      ["broken", "HTTP 404"],
      ["broken", "connection refused"],
      ["broken", "timeout"],
    ]);

    // One link.broken per broken link, signed, with the link exactly as the API answers it.
    await until(async () => received.length >= 3);
    const byAlias = new Map(received.map((d) => [d.payload.data.alias, d]));
    expect([...byAlias.keys()].sort()).toEqual(["missing", "refused", "slow"]);
    for (const l of broken.data) {
      const delivery = byAlias.get(l.alias);
      expect(delivery?.event).toBe("link.broken");
      expect(delivery?.payload.type).toBe("link.broken");
      expect(delivery?.payload.data).toEqual(l);
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(delivery?.signature ?? "") ?? [];
      expect(
        createHmac("sha256", hook.secret as string)
          .update(`${t}.${delivery?.body}`)
          .digest("hex"),
      ).toBe(v1);
    }
    console.log(
      [
        "destination health, end to end (worker timer → link → filter → webhook):",
        ...[fine, missing, refused, slow].map((l: { alias: string; url: string }) => {
          const now = broken.data.find((b) => b.alias === l.alias) ?? okNow;
          return `  /${l.alias} → ${l.url}: health=${now.health} reason=${now.health_reason ?? "null"} checked=${now.health_checked_at}`;
        }),
        `  GET /api/v1/links?health=broken → ${broken.meta.total} links: ${broken.data.map((l) => l.alias).join(", ")}`,
        ...received.map(
          (d) =>
            `  webhook ${d.event} delivered (signed) to ${receiverUrl}/hooks: delivery ${String((JSON.parse(d.body) as { id: number }).id)}, data = the link JSON: alias=${String(d.payload.data.alias)} health=${String(d.payload.data.health)} health_reason=${String(d.payload.data.health_reason)} (${d.body.length} bytes)`,
        ),
      ].join("\n"),
    );
  });

  it.each([
    ["an unknown value", "health=dead"],
    ["upper case", "health=BROKEN"],
    ["two values", "health=broken&health=ok"],
    ["a NUL", "health=broken%00"],
    ["a number", "health=1"],
  ])("a bad health filter (%s) is a 422 naming health, on the list and the export", async (_name, query) => {
    for (const path of ["/api/v1/links", "/api/v1/links/export"]) {
      const res = await get(`${path}?${query}`);
      expect([path, res.status]).toEqual([path, 422]);
      const body = JSON.parse(res.text) as { code: string; message: Record<string, string[]> };
      expect(body.code).toBe("validation_failed");
      expect(Object.keys(body.message)).toEqual(["health"]);
    }
    const trpc = await get(`/trpc/links.list?input=${encodeURIComponent(JSON.stringify({ health: "dead" }))}`);
    expect(trpc.status).toBe(400);
  });

  it("a changed url starts again as unchecked", { timeout: 90_000 }, async () => {
    const domainId = String(bootstrapDomainId(running));
    const l = await apiData(running.base, ADMIN_KEY, "POST", "/api/v1/links", { url: `${missingUrl}/again`, domain_id: domainId });
    await until(async () => (await apiData(running.base, ADMIN_KEY, "GET", `/api/v1/links/${l.id}`)).health === "broken");
    const moved = await apiData(running.base, ADMIN_KEY, "PATCH", `/api/v1/links/${l.id}`, { url: `${okUrl}/moved` });
    expect([moved.health, moved.health_reason, moved.health_checked_at]).toEqual(["unchecked", null, null]);
    await until(async () => (await apiData(running.base, ADMIN_KEY, "GET", `/api/v1/links/${l.id}`)).health === "ok");
  });
});

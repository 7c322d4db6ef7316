import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestServer, type TestServer } from "@shortener/launcher/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, verifyWebhook, type WebhookPayload } from "../src/index.ts";

/**
 * CONTRACT §18 end to end, as a service beside the shortener sees it: the all-in-one server (API,
 * visitor side and worker) with WEBHOOK_ALLOW_PRIVATE=1, a receiver on loopback reached through the
 * name `localhost` (the system resolver), every request checked with the client's `verifyWebhook`.
 */
const ADMIN_KEY = `shk_${"W".repeat(40)}`;
let running: TestServer;
let base: string;
let port: number;

type Got = { headers: Record<string, string | string[] | undefined>; body: string; payload: WebhookPayload };
const got: Got[] = [];
let receiver: Server;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      got.push({ headers: req.headers, body, payload: JSON.parse(body) as WebhookPayload });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  running = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, WEBHOOK_ALLOW_PRIVATE: "1", RATE_LIMIT_PER_MINUTE: "100000" });
  ({ base, port } = running);
});
afterAll(async () => {
  await running?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** A visit to `alias` on the service's own domain (`localhost:PORT`), as a browser would send it. */
function visit(alias: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path: `/${alias}`, headers: { host: `localhost:${port}`, "user-agent": BROWSER } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

async function until(test: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out; received ${JSON.stringify(got.map((g) => g.payload.type))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const ofType = <T extends WebhookPayload["type"]>(type: T) => got.filter((g) => g.payload.type === type).map((g) => g.payload as Extract<WebhookPayload, { type: T }>);

describe("webhooks, end to end", () => {
  it("delivers link.created/updated/deleted, link.clicked (adding up to the visits) and import.completed, signed", { timeout: 180_000 }, async () => {
    const shortener = createClient({ url: base, apiKey: ADMIN_KEY });
    const hook = await shortener.webhooks.create.mutate({
      url: `http://localhost:${(receiver.address() as AddressInfo).port}/hooks/shortener`,
      events: ["link.created", "link.updated", "link.deleted", "link.clicked", "import.completed"],
    });
    const domain = (await shortener.domains.list.query({ per_page: 100 })).data.find((d) => d.name === `localhost:${port}`);
    if (!domain) throw new Error("the service's own domain is missing");

    const a = await shortener.links.create.mutate({ url: "https://example.com/a", domain_id: domain.id, alias: "hook-a" });
    const b = await shortener.links.create.mutate({ url: "https://example.com/b", domain_id: domain.id, alias: "hook-b", title: "B" });
    const updated = await shortener.links.update.mutate({ id: a.id, title: "A, renamed" });

    const visits = { "hook-a": 7, "hook-b": 3 };
    for (let round = 0; round < 2; round++) {
      for (const [alias, n] of Object.entries(visits)) {
        for (let i = 0; i < (round === 0 ? n - 1 : 1); i++) expect(await visit(alias)).toBe(302);
      }
      // A second round after the first flush: two link.clicked events per link, which must add up.
      if (round === 0) await until(async () => (await shortener.links.get.query({ id: a.id })).clicks === 6);
    }
    await until(async () => (await shortener.links.get.query({ id: b.id })).clicks === 3 && (await shortener.links.get.query({ id: a.id })).clicks === 7);
    const bBefore = await shortener.links.get.query({ id: b.id });
    await shortener.links.delete.mutate({ id: b.id });

    const upload = await fetch(`${base}/api/v1/imports?domain_id=${domain.id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "text/csv" },
      body: "url,alias\nhttps://example.com/i1,hook-i1\njavascript:alert(1),hook-i2\n",
    });
    expect(upload.status).toBe(202);
    const jobId = ((await upload.json()) as { data: { id: number } }).data.id;

    await until(() => ofType("import.completed").length === 1 && ofType("link.deleted").length === 1);
    await until(() => ofType("link.clicked").reduce((n, e) => n + e.data.clicks, 0) === 10);

    // Every request is signed with the webhook's secret, and names itself in its headers.
    for (const { headers, body, payload } of got) {
      expect(verifyWebhook(body, headers["shortener-signature"], hook.secret, 300)).toBe(true);
      expect(verifyWebhook(body, headers["shortener-signature"], `${hook.secret}x`, 300)).toBe(false);
      expect(verifyWebhook(body.replace(/}$/, " }"), headers["shortener-signature"], hook.secret, 300)).toBe(false);
      expect(headers["shortener-event"]).toBe(payload.type);
      expect(headers["shortener-delivery"]).toBe(String(payload.id));
      expect(headers["content-type"]).toBe("application/json");
      expect(Date.parse(payload.created_at)).not.toBeNaN();
    }
    // One webhook: its deliveries arrive in order, each once.
    const ids = got.map((g) => g.payload.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);

    // The data is what the API answers.
    expect(ofType("link.created").map((e) => e.data)).toEqual([a, b]);
    expect(ofType("link.updated").map((e) => e.data)).toEqual([updated]);
    expect(ofType("link.deleted").map((e) => e.data)).toEqual([bBefore]);
    const clicked = ofType("link.clicked");
    const sums = new Map<number, number>();
    for (const e of clicked) {
      sums.set(e.data.link_id, (sums.get(e.data.link_id) ?? 0) + e.data.clicks);
      expect(Date.parse(e.data.from)).toBeLessThanOrEqual(Date.parse(e.data.to));
    }
    expect(Object.fromEntries(sums)).toEqual({ [a.id]: 7, [b.id]: 3 });
    expect(clicked.filter((e) => e.data.link_id === a.id).length).toBeGreaterThanOrEqual(2);
    const [completed] = ofType("import.completed");
    expect(completed?.data).toEqual(await shortener.imports.get.query({ id: jobId }));
    expect(completed?.data).toMatchObject({ id: jobId, status: "completed", created_rows: 1, failed_rows: 1, errors: [{ line: 3, field: "url" }] });

    // The deliveries log has one successful attempt per delivery.
    const log = await shortener.webhooks.deliveries.query({ id: hook.id, per_page: 100 });
    expect(log.meta.total).toBe(got.length);
    expect(log.data.every((attempt) => attempt.status === "succeeded" && attempt.response_code === 204 && attempt.delivery_status === "delivered" && attempt.next_try_at === null)).toBe(true);
    expect(log.data.map((attempt) => attempt.delivery_id).reverse()).toEqual(ids);
  });
});

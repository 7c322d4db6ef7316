import { Agent, request } from "node:http";
import pino from "pino";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTcpProxy, freePort, openServerStorage, type TcpProxy } from "@shortener/db/testing";
import { parseEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";

/**
 * The fault test of issue 12 (CONTRACT §16): with traffic running, the database goes away and comes
 * back. The service (`pnpm start` in one process: API, visitor side, import worker) reaches Postgres
 * through a TCP proxy that the test stops (its port closed, every connection cut) and starts again.
 * Nothing may answer 500; the API answers 503 `service_unavailable` with Retry-After meanwhile; the
 * cached link keeps redirecting; and every click sent is recorded once the database is back.
 *
 * Postgres only: PGlite runs inside the process, so there is no connection to lose.
 */
const ADMIN_KEY = `shk_${"F".repeat(40)}`;

type Sample = { kind: "visit" | "unknown" | "rest" | "trpc"; status: number; startedUp: boolean; endedUp: boolean; at: number; body: string; retryAfter: string | undefined };

describe("the database goes away under traffic and comes back (Postgres only: PGlite is in-process)", () => {
  let storage: Awaited<ReturnType<typeof openServerStorage>>;
  let proxy: TcpProxy;
  let server: RunningServer;
  let port: number;
  let host: string;
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });

  beforeAll(async () => {
    storage = await openServerStorage();
    const url = new URL(storage.settings.DATABASE_URL ?? "");
    proxy = await createTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    port = await freePort();
    host = `localhost:${port}`;
    server = await startServer(
      parseEnv({ DATABASE_URL: proxy.via(url.toString()), PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "100000" }),
      pino({ level: "silent" }),
    );
  });
  afterAll(async () => {
    await proxy?.start();
    await server?.close();
    agent.destroy();
    await proxy?.stop();
    await storage?.close();
  });

  function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, method, path, agent, headers: { host, "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers }));
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  const auth = { authorization: `Bearer ${ADMIN_KEY}` };

  it("answers no 500, 503 from the API during the outage, keeps redirecting a cached link, and loses no click", { timeout: 180_000 }, async () => {
    if (!server.boot.created || server.boot.domainId === null) throw new Error("no bootstrap domain");
    const created = await send(
      "POST",
      "/api/v1/links",
      { ...auth, "content-type": "application/json" },
      JSON.stringify({ url: "https://fault.example/dest", domain_id: server.boot.domainId, alias: "fault" }),
    );
    expect(created.status).toBe(201);
    const linkId = (JSON.parse(created.body) as { data: { id: number } }).data.id;

    const samples: Sample[] = [];
    let isRunning = true;
    const paths: Record<Sample["kind"], () => Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }>> = {
      visit: () => send("GET", "/fault"),
      unknown: () => send("GET", "/no-such-alias"),
      rest: () => send("GET", "/api/v1/links?per_page=10", auth),
      trpc: () => send("GET", "/trpc/links.list?input=%7B%7D", auth),
    };
    async function traffic(kind: Sample["kind"], pauseMs: number): Promise<void> {
      while (isRunning) {
        const startedUp = proxy.isUp;
        const res = await paths[kind]();
        const retryAfter = res.headers["retry-after"];
        samples.push({ kind, status: res.status, startedUp, endedUp: proxy.isUp, at: Date.now(), body: res.body, retryAfter: typeof retryAfter === "string" ? retryAfter : undefined });
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    }
    const running = [traffic("visit", 5), traffic("visit", 5), traffic("unknown", 20), traffic("rest", 20), traffic("trpc", 20)];

    await new Promise((r) => setTimeout(r, 2_000));
    await proxy.stop();
    const outageStarted = Date.now();
    await new Promise((r) => setTimeout(r, 4_000));
    await proxy.start();
    // Traffic goes on until the API answers again, and a little longer.
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await paths.rest()).status !== 200) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2_000));
    isRunning = false;
    await Promise.all(running);

    const during = samples.filter((s) => !s.startedUp && !s.endedUp);
    const tally = (list: Sample[]) => {
      const out: Record<string, Record<number, number>> = {};
      for (const s of list) (out[s.kind] ??= {})[s.status] = ((out[s.kind] ??= {})[s.status] ?? 0) + 1;
      return out;
    };
    console.log(`fault test: ${samples.length} requests; all: ${JSON.stringify(tally(samples))}; during the outage: ${JSON.stringify(tally(during))}`);

    // Nothing answers 500 (or any 5xx other than 503), before, during or after.
    expect(samples.filter((s) => s.status >= 500 && s.status !== 503)).toEqual([]);
    // The cached link redirects all along.
    expect(samples.filter((s) => s.kind === "visit" && s.status !== 302).map((s) => s.status)).toEqual([]);
    // During the outage the API answers 503 in the contract's shape, with Retry-After.
    for (const kind of ["rest", "trpc"] as const) {
      const answers = during.filter((s) => s.kind === kind);
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.filter((s) => s.status !== 503 || s.retryAfter !== "5")).toEqual([]);
    }
    for (const s of during.filter((x) => x.kind === "rest")) expect(JSON.parse(s.body)).toEqual({ message: "Service Unavailable.", code: "service_unavailable", status: 503 });
    for (const s of during.filter((x) => x.kind === "trpc")) expect(JSON.parse(s.body)).toMatchObject({ error: { data: { httpStatus: 503, slug: "service_unavailable" } } });
    // An alias the visitor side does not know needs the database: 503 during the outage (after the
    // "no such link" it cached just before expires: under a second), 404 otherwise.
    const unknownDuring = during.filter((s) => s.kind === "unknown");
    expect(unknownDuring.some((s) => s.status === 503)).toBe(true);
    expect(unknownDuring.filter((s) => !(s.status === 503 || (s.status === 404 && s.at - outageStarted < 1_500)))).toEqual([]);
    expect(samples.filter((s) => s.kind === "unknown" && s.startedUp && s.endedUp && s.status !== 404 && s.status !== 503)).toEqual([]);

    // Every click sent is recorded once the database is back (the counter and the click rows).
    const sent = samples.filter((s) => s.kind === "visit" && s.status === 302).length + 0;
    const direct = postgres(storage.settings.DATABASE_URL ?? "", { max: 1, onnotice: () => {} });
    try {
      const recordedBy = Date.now() + 30_000;
      let recorded = { counter: 0, rows: 0 };
      for (;;) {
        const [row] = await direct<{ counter: number; rows: number }[]>`
          select (select clicks from links where id = ${linkId})::int as counter,
                 (select coalesce(sum(count), 0) from clicks where link_id = ${linkId})::int as rows`;
        recorded = { counter: row?.counter ?? 0, rows: row?.rows ?? 0 };
        if ((recorded.counter >= sent && recorded.rows >= sent) || Date.now() > recordedBy) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      console.log(`fault test: clicks sent ${sent}, recorded ${recorded.counter} (counter) / ${recorded.rows} (click rows)`);
      expect(recorded).toEqual({ counter: sent, rows: sent });
    } finally {
      await direct.end();
    }
  });
});

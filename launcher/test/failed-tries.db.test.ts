import type { ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import { request } from "node:http";
import { freePort, openServerStorage, testDriver } from "@shortener/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnService } from "./helpers.ts";

/**
 * CONTRACT §15, the burst test on real launcher processes (`node --import tsx launcher/src/main.ts`):
 * 200 concurrent wrong passwords from one client give at most 10 × 401 and the rest 429 — on one
 * process, and across two processes on one database (counted in its `failed_tries` table, or in Redis
 * with REDIS_URL). Two processes cannot share an embedded (PGlite) data folder, so on the pglite project
 * only the one-process runs apply. Each run sends from an address of its own (X-Forwarded-For from a
 * trusted loopback proxy), so runs never share a counter in Redis.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const ADMIN_KEY = `shk_${"B".repeat(40)}`;
const LIMIT = 10;

type Launcher = { port: number; child: ChildProcess; stop(): Promise<void> };
const running: Launcher[] = [];
const storages: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const launcher of running) await launcher.stop();
  for (const close of storages) await close();
});

async function startLauncher(settings: Record<string, string>): Promise<Launcher> {
  const port = await freePort();
  const service = spawnService({ ...settings, PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, TRUST_PROXY: "loopback", LOG_LEVEL: "warn", RATE_LIMIT_PER_MINUTE: "100000" });
  const { child } = service;
  const launcher: Launcher = { port, child, stop: service.stop };
  running.push(launcher);
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`launcher exited: ${service.output()}`);
    const ready = await send(port, { method: "GET", path: "/readyz" }).catch(() => null);
    if (ready?.status === 200) return launcher;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`launcher did not get ready: ${service.output()}`);
}

function send(port: number, options: { method: string; path: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: options.method, path: options.path, headers: options.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

async function api(port: number, method: string, path: string, form?: Record<string, string>): Promise<any> {
  const res = await send(port, {
    method,
    path,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
  return JSON.parse(res.body).data;
}

/** A client address no other run uses. */
const clientIp = () => `10.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

/** Starts `processes` launchers on one fresh storage and makes a password link and a privacy-2 link. */
async function deployment(processes: number, extra: Record<string, string>) {
  const storage = await openServerStorage();
  storages.push(() => storage.close());
  const first = await startLauncher({ ...storage.settings, ...extra });
  const others = [];
  for (let i = 1; i < processes; i++) others.push(await startLauncher({ ...storage.settings, ...extra }));
  const ports = [first.port, ...others.map((o) => o.port)];
  const [domain] = await api(first.port, "GET", "/api/v1/domains");
  const host = domain.name as string;
  const link = await api(first.port, "POST", "/api/v1/links", { url: "https://burst.example/", domain_id: String(domain.id), password: "right one", privacy: "2", privacy_password: "stats one" });
  return { ports, host, link };
}

async function burst(ports: number[], make: (i: number) => { method: string; path: string; headers?: Record<string, string>; body?: string }) {
  const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => send(ports[i % ports.length] as number, make(i))));
  return tally(responses.map((r) => r.status));
}

const runs: Array<[string, number, Record<string, string>]> = [
  ["one process, counted in the database", 1, {}],
  ["one process, counted in Redis", 1, { REDIS_URL }],
  ...(testDriver() === "postgres"
    ? ([
        ["two processes on one database, counted in it", 2, {}],
        ["two processes on one database, counted in Redis", 2, { REDIS_URL }],
      ] as Array<[string, number, Record<string, string>]>)
    : []),
];

describe.each(runs)("%s", (name, processes, extra) => {
  let setup: Awaited<ReturnType<typeof deployment>>;
  beforeAll(async () => {
    setup = await deployment(processes, extra);
  }, 240_000);

  it("200 concurrent wrong link passwords: at most 10 × 401, the rest 429; the right one afterwards is a 429 on every process", async () => {
    const { ports, host, link } = setup;
    const ip = clientIp();
    const post = (password: string) => ({
      method: "POST",
      path: `/${link.alias}`,
      headers: { host, "x-forwarded-for": ip, "content-type": "application/x-www-form-urlencoded", "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0" },
      body: new URLSearchParams({ password }).toString(),
    });
    const counts = await burst(ports, () => post("wrong"));
    console.log(`link passwords, ${name} (${testDriver()}): 200 wrong passwords →`, JSON.stringify(counts));
    expect((counts[401] ?? 0) <= LIMIT && (counts[401] ?? 0) + (counts[429] ?? 0) === 200).toBe(true);
    expect(counts[401]).toBe(LIMIT);
    for (const port of ports) {
      const right = await send(port, post("right one"));
      expect(right.status).toBe(429);
      expect(right.headers["set-cookie"]).toBeUndefined();
    }
    // Another client still gets in.
    const other = await send(ports[0] as number, { ...post("right one"), headers: { ...post("right one").headers, "x-forwarded-for": clientIp() } });
    expect([other.status, other.headers.location]).toEqual([302, "https://burst.example/"]);
  }, 120_000);

  it("200 concurrent wrong stats passwords and 200 wrong API keys: at most 10 × 401 each", async () => {
    const { ports, link } = setup;
    const ip = clientIp();
    const stats = await burst(ports, () => ({
      method: "POST",
      path: `/stats/${link.id}`,
      headers: { "x-forwarded-for": ip, accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: "password=wrong",
    }));
    console.log(`stats passwords, ${name} (${testDriver()}): 200 wrong passwords →`, JSON.stringify(stats));
    expect(stats).toEqual({ 401: LIMIT, 429: 200 - LIMIT });

    const keyIp = clientIp();
    const keys = await burst(ports, (i) => ({ method: "GET", path: "/api/v1/account", headers: { "x-forwarded-for": keyIp, authorization: `Bearer shk_guess_${i}` } }));
    console.log(`API keys, ${name} (${testDriver()}): 200 wrong keys →`, JSON.stringify(keys));
    expect(keys).toEqual({ 401: LIMIT, 429: 200 - LIMIT });
  }, 120_000);
});

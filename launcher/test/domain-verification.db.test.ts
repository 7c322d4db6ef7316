import { request } from "node:http";
import { startTestDns, type TestDns } from "@shortener/core/testing";
import { freePort, testDriver } from "@shortener/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnService, startTestServer, type TestServer } from "./helpers.ts";

/*
 * #12 item 2 end to end (CONTRACT §14): the all-in-one service with DNS_SERVERS pointing at a real DNS
 * server on loopback. On Postgres a second, separate visitor-side process runs on the same database,
 * so a verification made through the API reaches its cache only through NOTIFY.
 */

const ADMIN_KEY = `shk_${"D".repeat(40)}`;

let dns: TestDns;
let server: TestServer;
let port: number;
beforeAll(async () => {
  dns = await startTestDns();
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, DNS_SERVERS: dns.server, LOG_LEVEL: "silent" });
  port = server.port;
});
afterAll(async () => {
  await server?.close();
  await dns?.close();
});

async function api(key: string, method: string, path: string, form?: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  return { status: res.status, body: await res.json() };
}

/** A visit as a browser sends it: to this machine's port, with the Host header of the short URL. */
function visit(targetPort: number, host: string, path: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: targetPort, path, headers: { host, "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0" }, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Polls a visit for up to 1 second (CONTRACT §7.12) until it redirects; the last answer. */
async function visitWithinOneSecond(targetPort: number, host: string, path: string) {
  const started = Date.now();
  let last = await visit(targetPort, host, path);
  while (last.status !== 302 && Date.now() - started < 1_000) {
    await new Promise((r) => setTimeout(r, 25));
    last = await visit(targetPort, host, path);
  }
  return { ...last, ms: Date.now() - started };
}

async function newUser(email: string): Promise<string> {
  const res = await api(ADMIN_KEY, "POST", "/users", { email: `${email}-${Math.random().toString(36).slice(2, 8)}@example.test`, name: email });
  expect(res.status).toBe(201);
  return res.body.data.api_key as string;
}

/** A visitor side of its own: a separate process on the same Postgres (SERVICES=redirect). */
async function startVisitorProcess(databaseUrl: string): Promise<{ port: number; stop(): Promise<void> }> {
  const childPort = await freePort();
  const service = spawnService({ DATABASE_URL: databaseUrl, PORT: String(childPort), SERVICES: "redirect", LOG_LEVEL: "warn", DATABASE_POOL_SIZE: "4" });
  for (let i = 0; !service.output().includes("is running at"); i++) {
    if (i > 600 || service.child.exitCode !== null) throw new Error(`visitor process did not start:\n${service.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port: childPort, stop: service.stop };
}

describe("#12 item 2, as reported", () => {
  it("a non-admin can no longer take the service's own address under another name, and example.com blocks no one", async () => {
    const mallory = await newUser("mallory");
    const alice = await newUser("alice");
    for (const name of [`127.0.0.1:${port}`, `localhost:${port}`, "localhost", "[::1]:" + port]) {
      const res = await api(mallory, "POST", "/domains", { name, index_page: "https://phish.example/login" });
      expect(res.status, name).toBe(422);
      expect(Object.keys(res.body.message)).toEqual(["name"]);
    }
    // Before the fix this was a 302 to https://phish.example/login.
    expect(await visit(port, `127.0.0.1:${port}`, "/")).toEqual({ status: 404, location: undefined });

    const squat = await api(mallory, "POST", "/domains", { name: "example.com" });
    expect(squat.status).toBe(201);
    expect(squat.body.data).toMatchObject({ verified: false, verification: { type: "TXT", name: "_shortener-challenge.example.com" } });
    const home = await api(alice, "POST", "/domains", { name: "alice-links.example" });
    // Before the fix: 422 "The URL must not point to a domain served by this service."
    const link = await api(alice, "POST", "/links", { url: "https://example.com/page", domain_id: String(home.body.data.id) });
    expect(link.status).toBe(201);
    expect(link.body.data.url).toBe("https://example.com/page");
  });
});

describe("an unverified domain neither serves nor blocks; verified through the loopback DNS, it serves within 1 second", () => {
  it("claims, prepares links, is refused as a host, verifies, then serves (on every visitor process)", async () => {
    const owner = await newUser("owner");
    const other = await newUser("other");
    const host = `claimed-${Math.random().toString(36).slice(2, 8)}.example`;
    const domain = (await api(owner, "POST", "/domains", { name: host, index_page: "https://home.example/" })).body.data;
    expect(domain).toMatchObject({ name: host, verified: false });

    // It takes links…
    const link = await api(owner, "POST", "/links", { url: "https://destination.example/landing", domain_id: String(domain.id) });
    expect(link.status).toBe(201);
    const alias = link.body.data.alias as string;
    // …but does not serve: its host is unknown to the visitor side (twice: the miss is cached now).
    for (let i = 0; i < 2; i++) {
      expect(await visit(port, host, `/${alias}`)).toEqual({ status: 404, location: undefined });
      expect(await visit(port, host, "/")).toEqual({ status: 404, location: undefined });
    }
    // …and blocks no one: another user's link to that host is accepted.
    const otherHome = (await api(other, "POST", "/domains", { name: `other-${Math.random().toString(36).slice(2, 8)}.example` })).body.data;
    expect((await api(other, "POST", "/links", { url: `https://${host}/before`, domain_id: String(otherHome.id) })).status).toBe(201);

    // A separate visitor process caches the unknown host too (Postgres only: PGlite is one process).
    const second = testDriver() === "postgres" ? await startVisitorProcess(server.settings.DATABASE_URL ?? "") : undefined;
    try {
      if (second) expect((await visit(second.port, host, `/${alias}`)).status).toBe(404);

      // No record yet: 422.
      const missing = await api(owner, "POST", `/domains/${domain.id}/verify`);
      expect(missing).toEqual({ status: 422, body: { message: { name: ["The verification record was not found."] }, code: "validation_failed", status: 422 } });
      expect((await visit(port, host, `/${alias}`)).status).toBe(404);

      // The owner publishes the record; verification finds it through DNS_SERVERS.
      dns.setTxt(domain.verification.name, [domain.verification.value]);
      const verified = await api(owner, "POST", `/domains/${domain.id}/verify`);
      expect(verified.status).toBe(200);
      expect(verified.body.data).toMatchObject({ id: domain.id, verified: true, verification: null });
      expect(dns.asked).toContain(`_shortener-challenge.${host}`);

      const served = await visitWithinOneSecond(port, host, `/${alias}`);
      expect(served).toMatchObject({ status: 302, location: "https://destination.example/landing" });
      expect(served.ms).toBeLessThan(1_000);
      expect(await visit(port, host, "/")).toEqual({ status: 302, location: "https://home.example/" });
      if (second) {
        const elsewhere = await visitWithinOneSecond(second.port, host, `/${alias}`);
        expect(elsewhere).toMatchObject({ status: 302, location: "https://destination.example/landing" });
        expect(elsewhere.ms).toBeLessThan(1_000);
      }
    } finally {
      await second?.stop();
    }

    // Now that it serves, it counts for the loop rule.
    const loop = await api(other, "POST", "/links", { url: `https://${host}/after`, domain_id: String(otherHome.id) });
    expect(loop.status).toBe(422);
    expect(loop.body.message).toEqual({ url: ["The URL must not point to a domain served by this service."] });
  });
});

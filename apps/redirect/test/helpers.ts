import { spawn, type ChildProcess } from "node:child_process";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createDomain, createLink, type CreateLinkInput } from "@shortener/core";
import { createTestUser, unique, type TestUser } from "@shortener/core/testing";
import type { Database } from "@shortener/db";
import { freePort, testDriver } from "@shortener/db/testing";
import { createFailedTries, createPostgresStore, type FailedTries } from "@shortener/web-guard";
import { createRedirect, DEFAULT_CACHE, DEFAULT_CLICK_BUFFER, type RedirectApp, type RedirectConfig } from "../src/index.ts";

export const BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
export const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

export type Visitor = {
  app: RedirectApp;
  port: number;
  visit(
    path: string,
    options?: { host?: string; method?: string; headers?: Record<string, string>; body?: string },
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>;
  close(): Promise<void>;
};

export function testConfig(overrides: Partial<RedirectConfig> = {}): RedirectConfig {
  return {
    redirectStatus: 302,
    secret: "test-secret-test-secret-test-secret",
    trustProxy: ["loopback"],
    geoCountryHeader: undefined,
    clickBuffer: { ...DEFAULT_CLICK_BUFFER, flushMs: 50 },
    cache: DEFAULT_CACHE,
    ...overrides,
  };
}

/** Failed password tries a client may send for one link in the tests: 3 a minute, counted in the database. */
export function testFailedTries(database: Database, now: () => Date = () => new Date()): FailedTries {
  return createFailedTries({ store: createPostgresStore(database), limit: { max: 3, windowMs: 60_000 }, now: () => now().getTime() });
}

/** A real visitor side on a real HTTP port, over the given database. */
export async function startVisitor(
  database: Database,
  overrides: Partial<RedirectConfig> = {},
  now: () => Date = () => new Date(),
  failedTries: FailedTries = testFailedTries(database, now),
): Promise<Visitor> {
  const app = createRedirect({ database, now, config: testConfig(overrides), failedTries });
  await app.start();
  const server: Server = createServer((req, res) => app.handle(req, res));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  return {
    app,
    port,
    visit: (path, options = {}) => httpRequest(port, path, options),
    async close() {
      await new Promise<void>((ok) => server.close(() => ok()));
      await app.close();
      await failedTries.close();
    },
  };
}

export function httpRequest(
  port: number,
  path: string,
  options: { host?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: { "user-agent": BROWSER, host: options.host ?? "localhost", ...options.headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

export type Site = { user: TestUser; domainId: number; host: string; link(input?: Partial<CreateLinkInput>): Promise<{ id: number; alias: string }> };

/**
 * A user with a domain of their own, and a way to add links to it through core. The domain is verified
 * at once (verification off), unless `verification: "dns"` leaves it unverified (CONTRACT §14).
 */
export async function createSite(database: Database, domain: { index_page?: string; not_found_page?: string } = {}, options: { verification?: "dns" | "off" } = {}): Promise<Site> {
  const user = await createTestUser(database.db);
  const host = `${unique("h")}.example`;
  const d = await createDomain({ ctx: user.ctx, input: { name: host, ...domain }, policy: { verification: options.verification ?? "off", reservedHosts: [] } });
  return {
    user,
    domainId: d.id,
    host,
    async link(input = {}) {
      const link = await createLink({ ctx: user.ctx, input: { url: "https://dest.example/path", domain_id: d.id, ...input } as CreateLinkInput });
      return { id: link.id, alias: link.alias };
    },
  };
}

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A visitor side on one database, stopped by `stop()`. */
export type Side = { port: number; stop(): Promise<void> };

/** A redirect process (the real launcher, SERVICES=redirect) on a Postgres database; `env` adds settings. */
export async function startProcess(url: string, env: Record<string, string> = {}): Promise<Side> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "launcher/src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), SERVICES: "redirect", LOG_LEVEL: "warn", DATABASE_POOL_SIZE: "10", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((ok) => child.once("exit", (code) => ok(code)));
  for (let i = 0; ; i++) {
    if (output.includes("is running at")) break;
    if (i > 300 || child.exitCode !== null) throw new Error(`redirect process did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    async stop() {
      child.kill("SIGTERM");
      const code = await exited;
      if (code !== 0) throw new Error(`redirect process exited with ${code}:\n${output}`);
    },
  };
}

/** Two visitor sides on one database: real processes on Postgres; two in-process apps on PGlite (single-process by nature). */
export async function startTwoSides(database: Database & { url?: string }, overrides: Partial<RedirectConfig> = {}): Promise<[Side, Side]> {
  if (testDriver() === "postgres") {
    const url = database.url;
    if (!url) throw new Error("no database url");
    return Promise.all([startProcess(url), startProcess(url)]);
  }
  const a = await startVisitor(database, overrides);
  const b = await startVisitor(database, overrides);
  return [
    { port: a.port, stop: () => a.close() },
    { port: b.port, stop: () => b.close() },
  ];
}

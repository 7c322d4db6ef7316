import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request, type RequestOptions } from "node:https";
import { request as httpRequest } from "node:http";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { fileURLToPath } from "node:url";
import { startTestDns, type TestDns } from "@shortener/core/testing";
import { freePort } from "@shortener/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiData, spawnService, type ServiceProcess } from "./helpers.ts";

/*
 * CONTRACT §22's first bullet end to end (docs/tls.md): the real service (the launcher's entry point,
 * embedded PGlite) behind Caddy from Debian's packages, run with the shipped deploy/Caddyfile and one
 * swap, CADDY_TLS_OPTIONS pointing at a file of this test's (Caddy's own certificate authority instead of
 * Let's Encrypt, no admin endpoint, ports and storage of its own). Then TLS with SNI to this machine: a
 * verified domain gets a certificate naming it and its link redirects over HTTPS, with the visitor's
 * own address reaching the service; an unverified and an unknown name get no certificate.
 */

const CADDYFILE = fileURLToPath(new URL("../../deploy/Caddyfile", import.meta.url));
const ADMIN_KEY = `shk_${"C".repeat(40)}`;
const PASSWORD = "right-password-1";
const uniq = () => Math.random().toString(36).slice(2, 8);

/** Caddy on the PATH, installed from the distribution's packages when missing (as root, like Chromium's). */
function ensureCaddy(): void {
  const has = () => spawnSync("sh", ["-c", "command -v caddy"], { stdio: "ignore" }).status === 0;
  if (has()) return;
  const run = (args: string[]) => spawnSync("apt-get", ["-o", "DPkg::Lock::Timeout=600", ...args], { encoding: "utf8", timeout: 300_000, env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  let result = run(["install", "-y", "--no-install-recommends", "caddy"]);
  // A machine whose package lists are old or empty: fetch them once, then try again.
  if (result.status !== 0) result = run(["update"]).status === 0 ? run(["install", "-y", "--no-install-recommends", "caddy"]) : result;
  // The package may start its own service (on :80, with an admin endpoint on :2019): this test runs its own.
  spawnSync("sh", ["-c", "systemctl stop caddy 2>/dev/null || invoke-rc.d caddy stop 2>/dev/null || true"], { stdio: "ignore", timeout: 30_000 });
  if (!has()) {
    const why = result.error ? result.error.message : `apt-get exited ${String(result.status)}: ${(result.stderr || result.stdout || "").trim().split("\n").slice(-3).join(" / ")}`;
    throw new Error(`caddy not found and could not be installed: ${why} (run \`apt-get install -y caddy\` as root)`);
  }
}

/** An IPv4 address of this machine that is not loopback: a "visitor" who is neither Caddy nor the service. */
function outsideAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
  if (!address) throw new Error("this test needs an IPv4 address other than loopback on this machine, to visit from (ip -4 addr)");
  return address;
}

/** Waits until `isReady()` or `deadlineMs`; fails with `describe()` when the process ends or time runs out. */
async function waitFor(what: string, isReady: () => boolean, child: ChildProcess, describe: () => string, deadlineMs: number): Promise<void> {
  const started = Date.now();
  while (!isReady()) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${String(child.exitCode ?? child.signalCode)}):\n${describe()}`);
    if (Date.now() - started > deadlineMs) throw new Error(`${what} not ready within ${deadlineMs / 1000} s:\n${describe()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Visit = { status: number; headers: Record<string, string | string[] | undefined>; certificate: ReturnType<TLSSocket["getPeerCertificate"]> };

let dns: TestDns;
let service: ServiceProcess | undefined;
let caddy: ChildProcess | undefined;
let caddyLog = "";
let dir: string;
let ports: { service: number; http: number; https: number };
let rootCa: string;
let from: string;

beforeAll(async () => {
  ensureCaddy();
  from = outsideAddress();
  dir = mkdtempSync(join(tmpdir(), "shortener-caddy-"));
  ports = { service: await freePort(), http: await freePort(), https: await freePort() };
  dns = await startTestDns();

  service = spawnService({
    DATA_DIR: join(dir, "data"),
    DATABASE_URL: "",
    HOST: "127.0.0.1",
    PORT: String(ports.service),
    ADMIN_API_KEY: ADMIN_KEY,
    DNS_SERVERS: dns.server,
    // Caddy runs on this host: its address is loopback. X-Forwarded-For is read from it, and only from it.
    TRUST_PROXY: "loopback",
    SHORT_URL_SCHEME: "https",
    LOG_LEVEL: "warn",
  });
  const started = service;
  await waitFor("the service", () => started.output().includes("is running at"), started.child, started.output, 90_000);

  // The test's swap for the ACME options: Caddy's own CA, nothing installed in the system's trust store.
  const options = join(dir, "local-certs.caddy");
  writeFileSync(
    options,
    ["local_certs", "skip_install_trust", "admin off", `http_port ${ports.http}`, `https_port ${ports.https}`, "storage file_system {", `\troot ${join(dir, "caddy")}`, "}", ""].join("\n"),
  );
  const upstream = `127.0.0.1:${ports.service}`;
  caddy = spawn("caddy", ["run", "--config", CADDYFILE, "--adapter", "caddyfile"], {
    cwd: dir,
    env: {
      ...process.env,
      SHORTENER_HOST: "shortener.test",
      UPSTREAM: upstream,
      API_UPSTREAM: upstream,
      CADDY_TLS_OPTIONS: options,
      XDG_CONFIG_HOME: join(dir, "config"),
      XDG_DATA_HOME: join(dir, "share"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  caddy.stdout?.on("data", (chunk) => (caddyLog += String(chunk)));
  caddy.stderr?.on("data", (chunk) => (caddyLog += String(chunk)));
  const rootPath = join(dir, "caddy", "pki", "authorities", "local", "root.crt");
  const running = caddy;
  await waitFor(
    "caddy",
    () => caddyLog.includes("serving initial configuration") && existsSync(rootPath),
    running,
    () => caddyLog.slice(-3000),
    30_000,
  );
  rootCa = readFileSync(rootPath, "utf8");
}, 420_000);

afterAll(async () => {
  if (caddy && caddy.exitCode === null && caddy.signalCode === null) {
    const exited = new Promise((r) => caddy?.once("exit", r));
    caddy.kill("SIGTERM");
    const force = setTimeout(() => caddy?.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(force);
  }
  await service?.stop();
  await dns?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

/** One HTTPS request to Caddy at `address` with SNI and Host `name`, trusting only Caddy's local root. */
function visit(name: string, path: string, options: { address?: string; method?: string; body?: string } = {}): Promise<Visit> {
  return new Promise((resolve, reject) => {
    const address = options.address ?? "127.0.0.1";
    const settings: RequestOptions = {
      host: address,
      localAddress: address,
      port: ports.https,
      servername: name,
      ca: rootCa,
      path,
      method: options.method ?? "GET",
      agent: false,
      timeout: 10_000,
      headers: { host: `${name}:${ports.https}`, "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0", ...(options.body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    };
    const req = request(settings, (res) => {
      const certificate = (res.socket as TLSSocket).getPeerCertificate();
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, certificate }));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from caddy within 10 s for ${name}${path}`)));
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Plain HTTP to Caddy's HTTP port with Host `name`. */
function plainVisit(name: string, path: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: ports.http, path, agent: false, timeout: 10_000, headers: { host: name } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on("timeout", () => req.destroy(new Error("no answer from caddy within 10 s")));
    req.on("error", reject);
    req.end();
  });
}

describe("HTTPS for every verified custom domain, through the shipped Caddyfile", () => {
  it("a verified domain gets a certificate naming it and its links redirect over HTTPS; unverified and unknown names get none", async () => {
    const base = `http://127.0.0.1:${ports.service}`;
    const user = await apiData(base, ADMIN_KEY, "POST", "/api/v1/users", { email: `tls-${uniq()}@example.test`, name: "TLS" });
    const key = user.api_key as string;
    const verified = await apiData(base, key, "POST", "/api/v1/domains", { name: `links-${uniq()}.test` });
    const unverified = await apiData(base, key, "POST", "/api/v1/domains", { name: `claimed-${uniq()}.test` });
    dns.setTxt(verified.verification.name, [verified.verification.value]);
    expect(await apiData(base, key, "POST", `/api/v1/domains/${verified.id}/verify`)).toMatchObject({ verified: true });
    expect(unverified.verified).toBe(false);
    const link = await apiData(base, key, "POST", "/api/v1/links", { url: "https://destination.example/landing", domain_id: String(verified.id), alias: "go" });
    expect(link.short_url).toBe(`https://${verified.name}/go`);

    // The verified domain: a certificate from Caddy's CA naming it, and the link's redirect over HTTPS.
    const res = await visit(verified.name, "/go?utm=tls");
    console.log(`certificate for ${verified.name}: subject ${JSON.stringify(res.certificate.subject ?? {})}, ${res.certificate.subjectaltname}, issuer ${res.certificate.issuer?.CN}`);
    console.log(`HTTPS GET https://${verified.name}:${ports.https}/go?utm=tls → ${res.status}, Location: ${String(res.headers.location)}`);
    expect(res.certificate.subjectaltname).toBe(`DNS:${verified.name}`);
    expect(res.certificate.issuer?.CN).toMatch(/Caddy Local Authority/);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("https://destination.example/landing?utm=tls");

    // Plain HTTP on that name is sent to HTTPS by Caddy.
    const plain = await plainVisit(verified.name, "/go");
    console.log(`HTTP GET http://${verified.name}:${ports.http}/go → ${plain.status}, Location: ${String(plain.location)}`);
    expect(plain.status).toBe(308);
    expect(plain.location).toMatch(new RegExp(`^https://${verified.name.replace(/\./g, "\\.")}(:${ports.https})?/go$`));

    // The unverified claim and a name no one has: the handshake is refused, no certificate.
    for (const name of [unverified.name, `unknown-${uniq()}.test`]) {
      const refused = await visit(name, "/go").then(
        (r) => `answered ${r.status}`,
        (error: NodeJS.ErrnoException) => `${error.code ?? "no code"}: ${error.message.trim()}`,
      );
      console.log(`TLS handshake for ${name}: ${refused}`);
      // Caddy ends the handshake with an alert: no certificate was sent (not one the client distrusted).
      expect(refused).toMatch(/^EPROTO: .*alert/);
    }
    expect(readFileSync(join(dir, "caddy", "certificates", "local", verified.name, `${verified.name}.crt`), "utf8")).toContain("BEGIN CERTIFICATE");
    expect(existsSync(join(dir, "caddy", "certificates", "local", unverified.name))).toBe(false);

    // The service's own host: its certificate was made at Caddy's start, and it reaches the API.
    const own = await visit("shortener.test", "/healthz");
    expect(own.certificate.subjectaltname).toBe("DNS:shortener.test");
    expect(own.status).toBe(200);
  }, 120_000);

  it("the visitor's own address reaches the service: a password guesser from one address is blocked, a visitor from another is not", async () => {
    const base = `http://127.0.0.1:${ports.service}`;
    const user = await apiData(base, ADMIN_KEY, "POST", "/api/v1/users", { email: `guard-${uniq()}@example.test`, name: "Guard" });
    const key = user.api_key as string;
    const domain = await apiData(base, key, "POST", "/api/v1/domains", { name: `guarded-${uniq()}.test` });
    dns.setTxt(domain.verification.name, [domain.verification.value]);
    await apiData(base, key, "POST", `/api/v1/domains/${domain.id}/verify`);
    await apiData(base, key, "POST", "/api/v1/links", { url: "https://destination.example/secret", domain_id: String(domain.id), alias: "locked", password: PASSWORD });

    // Ten wrong passwords from `from` (CONTRACT §15's limit), the eleventh try refused: counted for that address…
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await visit(domain.name, "/locked", { address: from, method: "POST", body: "password=wrong" })).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    // …not for Caddy's address, which every visitor would share if the service saw only it.
    expect((await visit(domain.name, "/locked", { method: "POST", body: "password=wrong" })).status).toBe(401);
    const right = await visit(domain.name, "/locked", { method: "POST", body: `password=${PASSWORD}` });
    console.log(
      `client address: 10 wrong passwords from ${from} → ${statuses.join(",")}; from 127.0.0.1 → 401, then the right one → ${right.status} (cookie ${/;\s*Secure/i.test(String(right.headers["set-cookie"])) ? "Secure: HTTPS seen through X-Forwarded-Proto" : "not Secure"})`,
    );
    expect(right.status).toBe(302);
    expect(right.headers.location).toBe("https://destination.example/secret");
    expect(String(right.headers["set-cookie"])).toMatch(/;\s*Secure/i);
  }, 120_000);
});

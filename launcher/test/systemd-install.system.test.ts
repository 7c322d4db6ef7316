// docs/deploying.md's systemd path, as far as it goes without systemd: a checkout cloned, installed and
// built in a temporary prefix (its /opt/shortener), the example settings installed as its
// /etc/shortener/env, then shortener.service's own ExecStart run the way systemd would run it: in its
// WorkingDirectory, with only its Environment= and EnvironmentFile= (read from the unit file, never
// copied here), as an unprivileged user when the test runs as root (so the checkout is read-only to the
// service, as ProtectSystem=strict makes it), and stopped with its KillSignal. /healthz must answer, a
// link on the operator's own domain must redirect, and the stop must exit 0 within TimeoutStopSec.
//
// Cheap on purpose: the clone is of this repository's HEAD (commit before running it), `pnpm install`
// links from the store the repository's own install filled, and the build shares turbo's cache with the
// repository (TURBO_CACHE_DIR), so a checkout whose packages were built before restores them instead of
// building again. The first run on a machine builds (a minute or two).
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@shortener/db/testing";
import { readUnit, serviceEnvironment, splitWords, unitValue } from "./systemd-unit.ts";

const REPO = join(import.meta.dirname, "../..");
const PNPM = ["-y", "pnpm@10.34.9"];

const prefix = mkdtempSync(join(tmpdir(), "shortener-systemd-"));
chmodSync(prefix, 0o755);
afterAll(() => rmSync(prefix, { recursive: true, force: true }));

/**
 * An operator's shell: this process's environment without what vitest adds (NODE_OPTIONS holds the
 * `@shortener/source` condition, which would make the build's own scripts load TypeScript sources).
 */
const SHELL_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !["NODE_OPTIONS", "NODE_ENV", "TEST"].includes(name) && !name.startsWith("VITEST")));

/** A path of the unit (an absolute path on the server) inside the prefix. */
const inPrefix = (path: string) => join(prefix, path);

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = SHELL_ENV): string {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout}${result.stderr}`;
  console.log(`$ ${[command, ...args].join(" ")}  (${((Date.now() - started) / 1000).toFixed(1)} s, exit ${result.status})`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed in ${cwd} (exit ${result.status}):\n${output.slice(-3000)}`);
  return output;
}

/** The uid and gid the service runs as: `nobody` when the test is root (the unit's User= does not exist here), else the test's own. */
function serviceUser(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(run("id", ["-u", "nobody"], prefix).trim());
  const gid = Number(run("id", ["-g", "nobody"], prefix).trim());
  return { uid, gid, name: "nobody" };
}

function get(port: number, path: string, host: string): Promise<{ status: number; location: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += String(chunk)));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function api(port: number, key: string, path: string, form: Record<string, string>): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await res.json()) as { data: unknown };
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

describe("docs/deploying.md, systemd path, without systemd", () => {
  it("a built checkout runs under shortener.service's command line and environment: /healthz, a redirect, a clean stop", async () => {
    // Step "Get the code": clone, install, build.
    const checkout = inPrefix("/opt/shortener");
    mkdirSync(join(prefix, "opt"));
    run("git", ["clone", "--quiet", "--depth", "1", `file://${REPO}`, checkout], prefix);
    run("npx", [...PNPM, "install", "--frozen-lockfile"], checkout);
    run("npx", [...PNPM, "build"], checkout, { ...SHELL_ENV, TURBO_CACHE_DIR: join(REPO, ".turbo/cache") });
    const before = run("git", ["status", "--porcelain", "--ignored"], checkout);

    // Step "Settings": the example file as /etc/shortener/env, plus the admin key the guide writes into it.
    const user = serviceUser();
    mkdirSync(inPrefix("/etc/shortener"), { recursive: true });
    copyFileSync(join(checkout, "deploy/systemd/shortener.env"), inPrefix("/etc/shortener/env"));
    const adminKey = randomBytes(24).toString("hex");
    const port = await freePort();
    // The one departure from the guide: a port the kernel picked, as the last line wins.
    appendFileSync(inPrefix("/etc/shortener/env"), `ADMIN_API_KEY=${adminKey}\nPORT=${port}\n`);

    // Step "Units": the unit as installed; what systemd makes of it.
    const unit = readUnit(join(checkout, "deploy/systemd/shortener.service"));
    const readFile = (path: string) => (existsSync(inPrefix(path)) ? readFileSync(inPrefix(path), "utf8") : undefined);
    const env = serviceEnvironment(unit, readFile);
    const workingDirectory = inPrefix(unitValue(unit, "Service", "WorkingDirectory"));
    const stateDirectory = inPrefix(`/var/lib/${unitValue(unit, "Service", "StateDirectory")}`);
    // StateDirectory= makes the folder, owned by the service's user, mode StateDirectoryMode=.
    mkdirSync(inPrefix("/var/lib"), { recursive: true });
    mkdirSync(stateDirectory, { mode: parseInt(unitValue(unit, "Service", "StateDirectoryMode"), 8) });
    if (user) chownSync(stateDirectory, user.uid, user.gid);
    // Paths the unit names on the server are the prefix's here (DATA_DIR=/var/lib/shortener).
    for (const [name, value] of Object.entries(env)) if (/^\/(var|etc|opt)\//.test(value)) env[name] = inPrefix(value);
    expect(env.DATA_DIR).toBe(stateDirectory);
    expect(env).toMatchObject({ MALLOC_TRIM_THRESHOLD_: "131072", HOST: "127.0.0.1", PORT: String(port), ADMIN_API_KEY: adminKey });

    const [command, ...args] = splitWords(unitValue(unit, "Service", "ExecStart"));
    if (!command) throw new Error("ExecStart= is empty");
    // The unit names /usr/bin/node (Debian's and NodeSource's place); elsewhere, this Node.
    const executable = existsSync(command) ? command : process.execPath;
    console.log(`ExecStart: ${[executable, ...args].join(" ")}  (cwd ${workingDirectory}, as ${user?.name ?? "this user"})`);
    expect(args).toContain("--max-semi-space-size=2");

    const child = spawn(executable, args, { cwd: workingDirectory, env, stdio: ["ignore", "pipe", "pipe"], ...(user ? { uid: user.uid, gid: user.gid } : {}) });
    let output = "";
    child.stdout.on("data", (chunk) => (output += String(chunk)));
    child.stderr.on("data", (chunk) => (output += String(chunk)));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    let exit: Awaited<typeof exited>;
    try {
      const deadline = Date.now() + 90_000;
      while (!/Shortener \S+ is running at/.test(output)) {
        if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}) before it ran:\n${output}`);
        if (Date.now() > deadline) throw new Error(`the service did not start within 90 s:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }

      const health = await get(port, "/healthz", `127.0.0.1:${port}`);
      console.log(`GET /healthz → ${health.status} ${health.body}`);
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ status: "ok" });

      // Step "Your domain": the admin adds the service's public name (verified at once) and a link on it.
      const domain = await api(port, adminKey, "/api/v1/domains", { name: "short.example.test" });
      const link = await api(port, adminKey, "/api/v1/links", { url: "https://example.com/deployed", domain_id: String(domain.id), alias: "hello" });
      expect(link.short_url).toBe("https://short.example.test/hello");
      const visit = await get(port, "/hello", "short.example.test");
      console.log(`GET http://short.example.test/hello → ${visit.status} Location: ${visit.location}`);
      expect(visit).toMatchObject({ status: 302, location: "https://example.com/deployed" });
    } finally {
      // systemctl stop: KillSignal=, then SIGKILL after TimeoutStopSec=.
      const signal = unitValue(unit, "Service", "KillSignal") as NodeJS.Signals;
      const timeoutMs = parseInt(unitValue(unit, "Service", "TimeoutStopSec"), 10) * 1000;
      const stopped = Date.now();
      child.kill(signal);
      const killer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      exit = await exited;
      clearTimeout(killer);
      console.log(`${signal} → exit ${exit.code ?? exit.signal} in ${Date.now() - stopped} ms`);
    }
    expect(exit, output).toEqual({ code: 0, signal: null });

    // The data went to the state directory, and nothing was written into the checkout.
    expect(existsSync(join(stateDirectory, "PG_VERSION"))).toBe(true);
    expect(run("git", ["status", "--porcelain", "--ignored"], checkout)).toBe(before);
  }, 600_000);
});

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@shortener/db/testing";
import { ensureDebianPackages, run, tail } from "./tools.ts";

/**
 * CONTRACT §22: deploy/Dockerfile builds, and its entry point serves. No image registry is reachable
 * here and `podman run` is refused by the sandbox, so (docs/adr/0036-container-image.md):
 * 1. a base image is made once, locally: `debootstrap --variant=minbase bookworm` plus this machine's
 *    Node (the same version) and npm, imported with `podman import`; podman's own store is the cache;
 * 2. the image is built on it with `podman build --isolation chroot` (BASE is the Dockerfile's build
 *    argument; pnpm's store is a build cache podman keeps, so a rebuild downloads nothing);
 * 3. the built image is mounted (`podman image mount`) and its configured entry point runs under
 *    `chroot` as the image's user, in a private mount namespace with /proc, /dev, /tmp and DATA_DIR
 *    mounted, on a free port of this machine's network. /healthz must answer 200, a link created through
 *    the API must redirect (302), and the image's HEALTHCHECK command must pass against it.
 * Needs root (mount, chroot) and Debian's podman and debootstrap (installed when missing). The first run
 * takes a few minutes (debootstrap ~1–2 min, the build 2–4 min); later runs reuse both.
 */
const ROOT = join(import.meta.dirname, "../..");
const BASE = `localhost/shortener-test-base:node-${process.version}`;
const IMAGE = "localhost/shortener-test:latest";
const ADMIN_KEY = `shk_${randomBytes(20).toString("hex")}`;
const MINUTE = 60_000;

type ImageConfig = {
  User: string;
  Env: string[];
  Entrypoint: string[] | null;
  Cmd: string[] | null;
  WorkingDir: string;
  Volumes: Record<string, object> | null;
  ExposedPorts: Record<string, object> | null;
};
type Healthcheck = { Test: string[]; Interval: number; Timeout: number; StartPeriod: number; Retries: number };

let config: ImageConfig;
let healthcheck: Healthcheck | undefined;
let imageSize = 0;
let mounted: string | undefined;
/** The service started from the image, stopped by afterAll if a test left it running. */
let service: ChildProcess | undefined;

async function inspect(name: string): Promise<{ Id: string; Size: number; Config: ImageConfig; Healthcheck?: Healthcheck }> {
  const { stdout } = await run("podman", ["image", "inspect", name], { what: `podman image inspect ${name}`, timeoutMs: MINUTE });
  const [image] = JSON.parse(stdout) as Array<{ Id: string; Size: number; Config: ImageConfig; Healthcheck?: Healthcheck }>;
  if (!image) throw new Error(`podman image inspect ${name}: no image`);
  return image;
}

/** Makes the local base image unless podman already has it: Debian bookworm (minbase) with this machine's Node 20 and npm. */
async function ensureBase(): Promise<void> {
  const exists = await run("podman", ["image", "exists", BASE], { what: "podman image exists", timeoutMs: MINUTE, allowFailure: true });
  if (exists.code === 0) return;
  if (!process.version.startsWith("v20.")) throw new Error(`the test's base image takes this machine's Node, which must be 20 (the Dockerfile's default base is node:20): found ${process.version}`);
  const work = mkdtempSync("/var/tmp/shortener-test-base-");
  try {
    const rootfs = join(work, "rootfs");
    const started = Date.now();
    await run("debootstrap", ["--variant=minbase", "bookworm", rootfs, "http://deb.debian.org/debian"], { what: "debootstrap of the base image", timeoutMs: 15 * MINUTE });
    // Node where the official image has it, and npm beside it (the build stage installs pnpm with npm).
    const local = join(rootfs, "usr/local");
    mkdirSync(join(local, "bin"), { recursive: true });
    cpSync(realpathSync(process.execPath), join(local, "bin/node"));
    const globalModules = (await run("npm", ["root", "-g"], { what: "npm root -g", timeoutMs: MINUTE })).stdout.trim();
    cpSync(join(globalModules, "npm"), join(local, "lib/node_modules/npm"), { recursive: true });
    symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(local, "bin/npm"));
    symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(local, "bin/npx"));
    const changes = ["ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"];
    // A machine whose registry traffic needs extra certificate authorities passes them on to the build.
    const extraCa = process.env.NODE_EXTRA_CA_CERTS;
    if (extraCa && existsSync(extraCa)) {
      cpSync(extraCa, join(local, "share/extra-ca-certificates.crt"));
      changes.push("ENV NODE_EXTRA_CA_CERTS=/usr/local/share/extra-ca-certificates.crt");
    }
    rmSync(join(rootfs, "var/cache/apt/archives"), { recursive: true, force: true });
    rmSync(join(rootfs, "var/lib/apt/lists"), { recursive: true, force: true });
    mkdirSync(join(rootfs, "var/lib/apt/lists/partial"), { recursive: true });
    const version = await run("chroot", [rootfs, "/usr/local/bin/node", "--version"], { what: "Node in the base image", timeoutMs: MINUTE });
    expect(version.stdout.trim()).toBe(process.version);
    const importArgs = changes.flatMap((change) => ["--change", change]);
    await run("bash", ["-o", "pipefail", "-c", 'tar -C "$1" -c . | podman import "${@:3}" - "$2"', "_", rootfs, BASE, ...importArgs], {
      what: "podman import of the base image",
      timeoutMs: 10 * MINUTE,
    });
    console.log(`base image ${BASE} made in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error("the image test needs root: podman image mount, mount and chroot");
  await ensureDebianPackages({ podman: "podman", debootstrap: "debootstrap", unshare: "util-linux", chroot: "coreutils" });
  await ensureBase();
  const previous = await run("podman", ["image", "inspect", "--format", "{{.Id}}", IMAGE], { what: "podman image inspect", timeoutMs: MINUTE, allowFailure: true });
  const started = Date.now();
  await run("podman", ["build", "--isolation", "chroot", "--format", "docker", "--layers", "--build-arg", `BASE=${BASE}`, "-t", IMAGE, "-f", "deploy/Dockerfile", "."], {
    what: "podman build",
    timeoutMs: 25 * MINUTE,
    cwd: ROOT,
  });
  const buildSeconds = Math.round((Date.now() - started) / 1000);
  const image = await inspect(IMAGE);
  // The image this build replaced is no longer tagged: remove it (its cached layers stay for the next build).
  const old = previous.stdout.trim();
  if (previous.code === 0 && old && image.Id !== old) await run("podman", ["rmi", old], { what: "podman rmi", timeoutMs: MINUTE, allowFailure: true });
  config = image.Config;
  // podman shows an image's HEALTHCHECK beside its config (docker format only: the build asks for it).
  healthcheck = image.Healthcheck;
  imageSize = image.Size;
  const base = await inspect(BASE);
  console.log(
    `image ${IMAGE}: ${(imageSize / 1e6).toFixed(0)} MB (its base ${(base.Size / 1e6).toFixed(0)} MB, the service ${((imageSize - base.Size) / 1e6).toFixed(0)} MB), built in ${buildSeconds} s`,
  );
  mounted = (await run("podman", ["image", "mount", IMAGE], { what: "podman image mount", timeoutMs: MINUTE })).stdout.trim();
}, 45 * MINUTE);

afterAll(async () => {
  if (service) signalGroup(service, "SIGKILL");
  if (mounted) await run("podman", ["image", "unmount", IMAGE], { what: "podman image unmount", timeoutMs: MINUTE, allowFailure: true });
});

/** `NAME=value` entries of the image's environment, as a map. */
function imageEnv(): Map<string, string> {
  return new Map(config.Env.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}

/** The image's USER as uid and gid (numbers, as it declares them). */
function imageUser(): { uid: number; gid: number } {
  const match = /^(\d+):(\d+)$/.exec(config.User);
  if (!match) throw new Error(`the image's USER is ${JSON.stringify(config.User)}, not uid:gid in numbers`);
  return { uid: Number(match[1]), gid: Number(match[2]) };
}

/**
 * Runs `command` inside the mounted image as its user, as a container would: a private mount namespace
 * with /proc, /dev, a /tmp and `dataDir` at /data, the image's environment (plus `env`) and working folder.
 */
function runInImage(command: readonly string[], env: Record<string, string>, dataDir: string): ChildProcess {
  if (!mounted) throw new Error("the image is not mounted");
  const { uid, gid } = imageUser();
  const environment = [...imageEnv(), ...Object.entries(env)].map(([name, value]) => `${name}=${value}`);
  const script =
    'set -e; R=$1; D=$2; U=$3; shift 3; mount -t proc proc "$R/proc"; mount --rbind /dev "$R/dev"; mount -t tmpfs tmpfs "$R/tmp"; mount --bind "$D" "$R/data"; exec chroot --userspec="$U" "$R" "$@"';
  // Its own process group: a signal to the group reaches the service itself (a parent-death signal would
  // not: chroot --userspec changes the user, which clears it).
  return spawn("unshare", ["--mount", "--fork", "bash", "-c", script, "_", mounted, dataDir, `${uid}:${gid}`, "/usr/bin/env", "-i", "-C", config.WorkingDir || "/", ...environment, ...command], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
}

/** Sends `signal` to everything `runInImage` started. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Resolves with the exit code and output of a process started by `runInImage`, killing it after `timeoutMs`. */
function finished(child: ChildProcess, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => signalGroup(child, "SIGKILL"), timeoutMs);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function get(port: number, path: string, host: string): Promise<{ status: number; location: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host }, timeout: 10_000 }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.once("timeout", () => req.destroy(new Error(`GET ${path}: no answer within 10 s`)));
    req.once("error", reject);
    req.end();
  });
}

describe("the container image (deploy/Dockerfile)", () => {
  it("runs as a non-root user that exists in it, owns only its data folder, and declares DATA_DIR a volume", () => {
    if (!mounted) throw new Error("the image is not mounted");
    const { uid, gid } = imageUser();
    expect(uid).not.toBe(0);
    const passwd = readFileSync(join(mounted, "etc/passwd"), "utf8").split("\n");
    const user = passwd.find((line) => line.split(":")[2] === String(uid));
    expect(user, `no user with uid ${uid} in the image's /etc/passwd`).toBeDefined();
    expect(user?.split(":")[3]).toBe(String(gid));

    const env = imageEnv();
    expect(env.get("DATA_DIR")).toBe("/data");
    expect(env.get("HOST")).toBe("0.0.0.0");
    expect(Object.keys(config.Volumes ?? {})).toEqual(["/data"]);
    const data = statSync(join(mounted, "data"));
    expect([data.uid, data.gid, data.mode & 0o777]).toEqual([uid, gid, 0o700]);

    // The application's files are root's and not writable by the service's user.
    const entry = join(mounted, config.WorkingDir, config.Cmd?.at(-1) ?? "");
    const stat = statSync(entry);
    expect(stat.uid).toBe(0);
    expect(stat.mode & 0o022).toBe(0);
    // Only what running needs: no sources, tests, TypeScript compiler or build tools of the workspace.
    expect(existsSync(join(mounted, "app/src"))).toBe(false);
    expect(existsSync(join(mounted, "app/node_modules/.pnpm/turbo@2.11.11"))).toBe(false);
    expect(existsSync(join(mounted, "app/node_modules/vitest"))).toBe(false);
    expect(healthcheck?.Test[0]).toBe("CMD");
  });

  it(
    "its entry point, run as the image's user, answers /healthz, redirects a link it created, and passes its own HEALTHCHECK",
    async () => {
      const dataDir = mkdtempSync("/var/tmp/shortener-image-data-");
      const { uid, gid } = imageUser();
      chownSync(dataDir, uid, gid);
      chmodSync(dataDir, 0o700);
      const port = await freePort();
      const command = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
      const server = runInImage(command, { PORT: String(port), ADMIN_API_KEY: ADMIN_KEY }, dataDir);
      service = server;
      const exited = finished(server, 10 * MINUTE);
      let isRunning = true;
      void exited.then(() => (isRunning = false));
      // The data folder's owner is checked only after a run that served: else the run's own error is the news.
      let hasServed = false;
      try {
        const deadline = Date.now() + 3 * MINUTE;
        let health: Awaited<ReturnType<typeof get>> | undefined;
        while (!health && Date.now() < deadline) {
          if (!isRunning) throw new Error(`the image's entry point exited before answering /healthz:\n${tail((await exited).output)}`);
          health = await get(port, "/healthz", `localhost:${port}`).catch(() => undefined);
          if (!health) await new Promise((ok) => setTimeout(ok, 500));
        }
        if (!health) throw new Error(`the image's entry point did not answer /healthz within 3 minutes`);
        console.log(`image ${(imageSize / 1e6).toFixed(0)} MB, entry point \`${command.join(" ")}\` as ${config.User}: GET /healthz → ${health.status} ${health.body}`);
        expect(health.status).toBe(200);

        const headers = { authorization: `Bearer ${ADMIN_KEY}` };
        const domains = await fetch(`http://127.0.0.1:${port}/api/v1/domains`, { headers, signal: AbortSignal.timeout(30_000) });
        expect(domains.status).toBe(200);
        const domain = ((await domains.json()) as { data: Array<{ id: number; name: string }> }).data.find((d) => d.name === `localhost:${port}`);
        expect(domain, "the first start's domain").toBeDefined();
        const created = await fetch(`http://127.0.0.1:${port}/api/v1/links`, {
          method: "POST",
          headers,
          body: new URLSearchParams({ url: "https://example.com/from-the-image", domain_id: String(domain?.id) }),
        });
        const link = (await created.json()) as { data: { alias: string; short_url: string } };
        expect(created.status, JSON.stringify(link)).toBe(201);
        const visit = await get(port, `/${link.data.alias}`, `localhost:${port}`);
        console.log(`image: POST /api/v1/links → ${created.status} ${link.data.short_url}; GET /${link.data.alias} → ${visit.status} Location: ${visit.location}`);
        expect(visit.status).toBe(302);
        expect(visit.location).toBe("https://example.com/from-the-image");

        // The image's own HEALTHCHECK, run inside it as a container engine would: passes against the
        // running service, fails where nothing listens.
        const check = healthcheck?.Test.slice(1) ?? [];
        const passing = await finished(runInImage(check, { PORT: String(port) }, dataDir), MINUTE);
        const failing = await finished(runInImage(check, { PORT: String(await freePort()) }, dataDir), MINUTE);
        console.log(`image: HEALTHCHECK → exit ${passing.code} (service up), exit ${failing.code} (nothing listening)`);
        expect(passing, passing.output).toMatchObject({ code: 0 });
        expect(failing.code).toBe(1);
        hasServed = true;
      } finally {
        signalGroup(server, "SIGTERM");
        const stopping = setTimeout(() => signalGroup(server, "SIGKILL"), 30_000);
        const { code, output } = await exited;
        clearTimeout(stopping);
        if (code !== 0 && code !== null) console.log(`the entry point exited with ${code}:\n${tail(output)}`);
        // The embedded database was written by the image's user, in the volume.
        const version = join(dataDir, "PG_VERSION");
        const owner = existsSync(version) ? statSync(version).uid : undefined;
        rmSync(dataDir, { recursive: true, force: true });
        if (hasServed) expect(owner).toBe(uid);
      }
    },
    10 * MINUTE,
  );
});

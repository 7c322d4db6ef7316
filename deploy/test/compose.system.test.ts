import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDebianPackages, run } from "./tools.ts";

/**
 * CONTRACT §22: deploy/compose.yaml, read by a compose tool with the operator's `.env` made from
 * deploy/.env.example as docs/deploying-compose.md says (`cp .env.example .env`). The tool is
 * `docker compose` when it exists, else Debian's `docker-compose` (1.29, installed when missing): it
 * validates the file against the compose schema and interpolates it without touching any container.
 * Debian's podman-compose (1.0.3) has no `config` command, and its `--dry-run up` still creates the
 * project's volumes and network, so it is not used here (docs/adr/0036-container-image.md).
 */
const DEPLOY = join(import.meta.dirname, "..");
const ROLES = ["api", "redirect", "worker"] as const;
const MINUTE = 60_000;

type Service = {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: Array<string | { source: string; target: string }>;
  ports?: unknown[];
};
type Config = { services: Record<string, Service>; volumes?: Record<string, unknown> };

let compose: string[] = [];
let work: string;

beforeAll(async () => {
  const v2 = await run("docker", ["compose", "version"], { what: "docker compose version", timeoutMs: MINUTE, allowFailure: true }).catch(() => ({ code: 1 }));
  if (v2.code === 0) compose = ["docker", "compose"];
  else {
    await ensureDebianPackages({ "docker-compose": "docker-compose" });
    compose = ["docker-compose"];
  }
  work = mkdtempSync(join(tmpdir(), "shortener-compose-"));
}, 15 * MINUTE);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A copy of deploy/ with `.env` as given, as an operator's checkout would have it. */
function project(env: string): string {
  const dir = mkdtempSync(join(work, "project-"));
  mkdirSync(join(dir, "deploy"));
  cpSync(join(DEPLOY, "compose.yaml"), join(dir, "deploy/compose.yaml"));
  writeFileSync(join(dir, "deploy/.env"), env);
  return join(dir, "deploy");
}

/** `compose config` of a project: its whole configuration as data, or the tool's failure. */
async function config(dir: string): Promise<{ code: number; output: string; config?: Config }> {
  const [command = "docker-compose", ...first] = compose;
  const asJson = compose.length === 2 ? ["--format", "json"] : [];
  const result = await run(command, [...first, "-f", "compose.yaml", "config", ...asJson], { what: `${compose.join(" ")} config`, timeoutMs: MINUTE, cwd: dir, allowFailure: true });
  if (result.code !== 0) return { code: result.code, output: `${result.stdout}\n${result.stderr}` };
  if (asJson.length) return { code: 0, output: result.stdout, config: JSON.parse(result.stdout) as Config };
  // docker-compose 1.x prints YAML only; its own dependency python3-yaml reads it.
  writeFileSync(join(dir, "config.yaml"), result.stdout);
  const json = await run("python3", ["-c", "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)", "config.yaml"], {
    what: "reading compose config",
    timeoutMs: MINUTE,
    cwd: dir,
  });
  return { code: 0, output: result.stdout, config: JSON.parse(json.stdout) as Config };
}

const EXAMPLE = readFileSync(join(DEPLOY, ".env.example"), "utf8");

/** The example with one variable's line removed. */
const without = (name: string) =>
  EXAMPLE.split("\n")
    .filter((line) => !line.startsWith(`${name}=`))
    .join("\n");

/** The HEALTHCHECK command of deploy/Dockerfile, as the array its CMD form holds. */
function imageHealthcheck(): string[] {
  const dockerfile = readFileSync(join(DEPLOY, "Dockerfile"), "utf8").replace(/\\\n\s*/g, " ");
  const match = /^HEALTHCHECK .*? CMD (\[.*\])$/m.exec(dockerfile);
  if (!match?.[1]) throw new Error("deploy/Dockerfile has no HEALTHCHECK … CMD [...] line");
  return ["CMD", ...(JSON.parse(match[1]) as string[])];
}

describe("deploy/compose.yaml", () => {
  it(
    "is valid with the .env an operator makes from .env.example: PostgreSQL, Redis, Caddy and the three roles of one image",
    async () => {
      const dir = project(EXAMPLE);
      const { code, output, config: parsed } = await config(dir);
      expect(code, output).toBe(0);
      if (!parsed) throw new Error("no configuration");
      const services = parsed.services;
      console.log(
        `${compose.join(" ")} config: valid; services ${Object.keys(services).sort().join(", ")}; volumes ${Object.keys(parsed.volumes ?? {})
          .sort()
          .join(", ")}`,
      );
      expect(Object.keys(services).sort()).toEqual(["api", "caddy", "postgres", "redirect", "redis", "worker"]);
      expect(Object.keys(parsed.volumes ?? {}).sort()).toEqual(["caddy-config", "caddy-data", "postgres-data"]);

      const password = /^POSTGRES_PASSWORD=(.*)$/m.exec(EXAMPLE)?.[1];
      const siteHost = /^SHORTENER_HOST=(.*)$/m.exec(EXAMPLE)?.[1];
      const image = services.api?.image;
      expect(image).toBeTruthy();
      for (const role of ROLES) {
        const service = services[role];
        expect(service?.image, role).toBe(image);
        expect(service?.build?.dockerfile, role).toBe("deploy/Dockerfile");
        expect(service?.environment, role).toMatchObject({
          SERVICES: role,
          HOST: "0.0.0.0",
          DATABASE_URL: `postgres://shortener:${password}@postgres:5432/shortener`,
          REDIS_URL: "redis://redis:6379",
          SHORT_URL_SCHEME: "https",
          RESERVED_HOSTS: siteHost,
        });
        // Compose repeats the image's own health check (podman keeps it only in docker-format images).
        expect(service?.healthcheck?.test, role).toEqual(imageHealthcheck());
        expect(service?.depends_on?.postgres?.condition, role).toBe("service_healthy");
      }
      // The api role migrates and creates the admin first; the others start once it is healthy.
      expect(services.redirect?.depends_on?.api?.condition).toBe("service_healthy");
      expect(services.worker?.depends_on?.api?.condition).toBe("service_healthy");
      expect(services.postgres?.environment).toMatchObject({ POSTGRES_PASSWORD: password, POSTGRES_USER: "shortener", POSTGRES_DB: "shortener" });

      // Caddy: the shipped Caddyfile, and where it sends what.
      expect(services.caddy?.environment).toMatchObject({ SHORTENER_HOST: siteHost, UPSTREAM: "redirect:3000", API_UPSTREAM: "api:3000" });
      const mounts = JSON.stringify(services.caddy?.volumes);
      expect(mounts).toContain(`${join(dir, "Caddyfile")}:/etc/caddy/Caddyfile:ro`);
      expect(mounts).toContain(`${join(dir, "caddy")}:/etc/caddy/caddy:ro`);
      expect(services.caddy?.depends_on).toMatchObject({ api: { condition: "service_healthy" }, redirect: { condition: "service_healthy" } });
      // Every variable deploy/Caddyfile and its imports read is given to Caddy (CADDY_TLS_OPTIONS keeps its
      // default). The Caddyfile comes from the on-demand TLS work (docs/tls.md); without it, this is moot.
      const caddyFiles = [join(DEPLOY, "Caddyfile"), join(DEPLOY, "caddy/acme.caddy")].filter((file) => existsSync(file));
      const read = new Set(caddyFiles.flatMap((file) => [...readFileSync(file, "utf8").matchAll(/\{\$([A-Z_]+)/g)].map((m) => m[1])));
      read.delete("CADDY_TLS_OPTIONS");
      for (const name of read) expect(services.caddy?.environment, `Caddy reads ${name}`).toHaveProperty(name as string);
      // Only Caddy publishes ports.
      for (const name of ["api", "redirect", "worker", "postgres", "redis"]) expect(services[name]?.ports, name).toBeUndefined();
    },
    5 * MINUTE,
  );

  it.each(["SHORTENER_HOST", "ACME_EMAIL", "POSTGRES_PASSWORD"])(
    "without %s in .env, config fails and names it",
    async (name) => {
      const { code, output } = await config(project(without(name)));
      expect(code).not.toBe(0);
      expect(output).toContain(`set ${name} in .env`);
    },
    5 * MINUTE,
  );

  it(
    "without a .env at all, config fails",
    async () => {
      const dir = project("");
      rmSync(join(dir, ".env"));
      const { code, output } = await config(dir);
      expect(code).not.toBe(0);
      expect(output).toMatch(/\.env/);
    },
    5 * MINUTE,
  );
});

import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@shortener/db/testing";
import { parseEnv, startServer, type RunningServer } from "@shortener/launcher";

/**
 * CONTRACT §16: `@shortener/client` as a service outside this repository gets it. The test packs the
 * package with pnpm (its `prepack` builds it), installs the tarball with npm into a new project in the system's
 * temporary folder (no workspace above it), type-checks a consumer with `tsc --strict` (each
 * `@ts-expect-error` line must be an error, or tsc fails), then runs the compiled consumer against a
 * live server. Needs the npm registry (or npm's offline cache) for @trpc/* and typescript.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../../..");
const CLIENT = join(ROOT, "packages/client");
const ADMIN_KEY = `shk_${"P".repeat(40)}`;
const TRPC_VERSION = "11.25.2";
const TYPESCRIPT_VERSION = "5.9.3";
const NODE_TYPES_VERSION = "20.19.43";

let work: string;
let running: RunningServer | undefined;
let base: string;

/** pnpm as the test command runs it (`npm_execpath`), else the README's `npx -y pnpm@10.34.9`. */
function pnpm(args: string[], cwd: string) {
  const execPath = process.env.npm_execpath;
  if (execPath && /pnpm/.test(execPath)) return run(process.execPath, [execPath, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  return run("npx", ["-y", "pnpm@10.34.9", ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "shortener-packed-client-"));
  const dataDir = join(work, "data");
  const port = await freePort();
  running = await startServer(parseEnv({ DATA_DIR: dataDir, PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, SERVICES: "api" }), pino({ level: "silent" }));
  base = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  await running?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const CONSUMER = `import { createClient, isClientError, WEBHOOK_EVENTS, type RouterInputs, type RouterOutputs, type WebhookEventType } from "@shortener/client";

type IsAny<T> = 0 extends 1 & T ? true : false;
type IsUnknown<T> = unknown extends T ? (IsAny<T> extends true ? false : true) : false;

const client = createClient({ url: process.env.SHORTENER_URL ?? "", apiKey: process.env.SHORTENER_KEY ?? "" });

// Inputs and outputs are real types: neither any nor unknown.
const typedInput: [IsAny<RouterInputs["links"]["create"]["url"]>, IsUnknown<RouterInputs["links"]["create"]["domain_id"]>] = [false, false];
const typedOutput: [IsAny<RouterOutputs["links"]["get"]>, IsAny<RouterOutputs["links"]["list"]["data"][number]["clicks"]>] = [false, false];
const perPage: RouterInputs["links"]["list"]["per_page"] = 25;
void typedInput;
void typedOutput;
void perPage;

export function neverCalled(): void {
  // @ts-expect-error a wrong field name
  void client.links.create.mutate({ url: "https://example.com/", domain_id: 1, titel: "x" });
  // @ts-expect-error url is a string
  void client.links.create.mutate({ url: 42, domain_id: 1 });
  // @ts-expect-error per_page is 10, 25, 50 or 100
  void client.links.list.query({ per_page: "banana" });
  // @ts-expect-error domain_id is required on create
  void client.links.create.mutate({ url: "https://example.com/" });
  // @ts-expect-error no such procedure
  void client.links.craete.mutate({ url: "https://example.com/", domain_id: 1 });
}

const account = await client.account.get.query();
const domains = await client.domains.list.query({ per_page: 10 });
const domainId: number = domains.data[0]?.id ?? 0;
const link = await client.links.create.mutate({ url: "https://example.com/packed", domain_id: domainId, alias: "packed-client", pixel_ids: [] });
const shortUrl: string = link.short_url;
const status: 1 | 2 | 3 = link.status;
const fetched = await client.links.get.query({ id: link.id });
let failure: { slug?: string; fieldErrors?: Record<string, string[]> | null } = {};
try {
  await client.links.create.mutate({ url: "javascript:alert(1)", domain_id: domainId });
} catch (error) {
  if (isClientError(error)) failure = { slug: error.data?.slug, fieldErrors: error.data?.fieldErrors };
}
// The webhook events: the vocabulary's list, copied into the package (dist/vocabulary/).
const firstEvent: WebhookEventType = WEBHOOK_EVENTS[0];
console.log(JSON.stringify({ role: account.role, shortUrl, status, sameAlias: fetched.alias === link.alias, total: domains.meta.total, failure, events: [...WEBHOOK_EVENTS], firstEvent }));
`;

describe("@shortener/client, packed and installed outside the workspace", () => {
  it("builds, packs without catalog:/workspace: versions, type-checks a strict consumer, and calls a live server", async () => {
    // 1–2. Pack, as `pnpm publish` would. `prepack` builds first, from a clean dist/: JavaScript by tsc,
    // the declarations with the router's types inside (scripts/build-types.mjs).
    rmSync(join(CLIENT, "dist"), { recursive: true, force: true });
    const packDir = join(work, "pack");
    mkdirSync(packDir);
    await pnpm(["pack", "--pack-destination", packDir], CLIENT);
    const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith(".tgz")) ?? "");
    const { stdout: listing } = await run("tar", ["-tzf", tarball]);
    expect(listing.split("\n").filter(Boolean).sort()).toEqual([
      "package/LICENSE",
      "package/README.md",
      "package/dist/index.d.ts",
      "package/dist/index.js",
      "package/dist/index.js.map",
      // @shortener/vocabulary, copied in by the build (docs/adr/0034-dashboard-libraries-and-vocabulary.md).
      ...["imports", "index", "links", "pixels", "scopes", "targeting", "webhooks", "workspaces"].flatMap((name) => [`package/dist/vocabulary/${name}.d.ts`, `package/dist/vocabulary/${name}.js`]),
      "package/dist/webhooks.d.ts",
      "package/dist/webhooks.js",
      "package/dist/webhooks.js.map",
      "package/package.json",
    ]);
    const { stdout: manifestText } = await run("tar", ["-xzOf", tarball, "package/package.json"]);
    expect(manifestText).not.toMatch(/catalog:|workspace:/);
    const manifest = JSON.parse(manifestText) as Record<string, any>;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies).toEqual({ "@trpc/client": `^${TRPC_VERSION}`, "@trpc/server": `^${TRPC_VERSION}` });
    expect(manifest.exports).toEqual({
      ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
      "./webhooks": { types: "./dist/webhooks.d.ts", default: "./dist/webhooks.js" },
    });
    expect(manifest.private).toBeUndefined();
    const { stdout: declarations } = await run("tar", ["-xzOf", tarball, "package/dist/index.d.ts"]);
    expect(declarations).not.toMatch(/@shortener\/(api|core|db|launcher)|drizzle|fastify|pglite|from "zod"|import\(/);
    // The tRPC peers, and the package's own webhook helper (dist/webhooks.d.ts), by its built name.
    expect([...declarations.matchAll(/from "([^"]+)"/g)].map((m) => m[1]).sort()).toEqual(["./webhooks.js", "./webhooks.js", "@trpc/client", "@trpc/server", "@trpc/server"]);

    // 3. A new project outside the workspace; npm installs the tarball and its peers.
    const project = join(work, "consumer");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          skipLibCheck: false,
          types: ["node"],
          lib: ["ES2022", "DOM", "ESNext.Disposable"],
          outDir: "out",
        },
        include: ["consumer.ts"],
      }),
    );
    writeFileSync(join(project, "consumer.ts"), CONSUMER);
    await run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
        tarball,
        `@trpc/client@${TRPC_VERSION}`,
        `@trpc/server@${TRPC_VERSION}`,
        `typescript@${TYPESCRIPT_VERSION}`,
        `@types/node@${NODE_TYPES_VERSION}`,
      ],
      {
        cwd: project,
        maxBuffer: 64 * 1024 * 1024,
      },
    );

    // 4. tsc --strict: passes only if the consumer's good calls compile and every @ts-expect-error line is an error.
    const tsc = join(project, "node_modules/typescript/bin/tsc");
    const compiled = await run(process.execPath, [tsc, "-p", project, "--strict"], { cwd: project }).then(
      (r) => ({ code: 0, output: r.stdout + r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` }),
    );
    expect(compiled.output).toBe("");
    expect(compiled.code).toBe(0);
    // The same consumer without its @ts-expect-error comments: tsc reports each of those lines.
    writeFileSync(join(project, "consumer.ts"), CONSUMER.replaceAll("// @ts-expect-error", "// expected:"));
    const unguarded = await run(process.execPath, [tsc, "-p", project, "--strict", "--noEmit"], { cwd: project }).then(
      () => "",
      (e: { stdout?: string }) => e.stdout ?? "",
    );
    expect(unguarded.match(/error TS\d+/g)?.length).toBe(5);
    expect(unguarded).toMatch(/'titel' does not exist/);
    expect(unguarded).toMatch(/Type 'number' is not assignable to type 'string'/);
    expect(unguarded).toMatch(/Type 'string' is not assignable to type '10 \| 25 \| 50 \| 100 \| null \| undefined'/);
    expect(unguarded).toMatch(/Property 'domain_id' is missing/);
    expect(unguarded).toMatch(/Property 'craete' does not exist/);

    // 5. The compiled consumer against the live server.
    const { stdout } = await run(process.execPath, [join(project, "out/consumer.js")], { cwd: project, env: { ...process.env, SHORTENER_URL: base, SHORTENER_KEY: ADMIN_KEY } });
    const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(result).toEqual({
      role: "admin",
      shortUrl: expect.stringMatching(/^http:\/\/localhost:\d+\/packed-client$/),
      status: 1,
      sameAlias: true,
      total: 1,
      failure: { slug: "validation_failed", fieldErrors: { url: ["The url must start with http:// or https://."] } },
      events: ["link.created", "link.updated", "link.deleted", "link.clicked", "import.completed", "link.broken"],
      firstEvent: "link.created",
    });
    console.log(`packed client: ${tarball.split("/").at(-1)}; consumer output ${stdout.trim()}`);
  }, 600_000);
});

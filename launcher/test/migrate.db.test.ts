import { createServer, type Server as HttpServer } from "node:http";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { freePort, openServerStorage } from "@shortener/db/testing";
import { runCli } from "@shortener/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";
import { bootstrapDomainId, startTestServer, type TestServer } from "./helpers.ts";

/**
 * CONTRACT §23, issue #31: `importer migrate --from phpshort` against a real second instance of this
 * service (its API on a database of its own), into a fresh one, on both drivers: compared link by link,
 * run again (nothing new), interrupted and resumed; then the source failures a real source can have
 * (a phpShort-compatible server answering 401, 429, 5xx, loops, lying totals and hostile values).
 */
const KEY = `shk_${"M".repeat(40)}`;
const TARGET_KEY = `shk_${"T".repeat(40)}`;
const SETTINGS = { RATE_LIMIT_PER_MINUTE: "1000000", DOMAIN_VERIFICATION: "off" };
const DOMAINS = ["go.mig.test", "s.mig.test"];
const future = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);

let source: TestServer;
/** Links seeded on the source, by alias: what each must become. */
const seeded = new Map<string, { form: Record<string, string>; isRefused?: string }>();

async function api(base: string, key: string, method: string, path: string, form?: Record<string, string>): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  const body = (await res.json()) as { data: unknown };
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

async function allLinks(base: string, key: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${base}/api/v1/links?per_page=100&sort_by=id&sort=asc&page=${page}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { data: any[]; links: { next: string | null } };
    out.push(...body.data);
    if (!body.links.next) return out;
  }
}

/** A target: storage that outlives its server, so the CLI can write into it between two starts (PGlite is one process at a time). */
async function openTarget() {
  const storage = await openServerStorage();
  let running: RunningServer | undefined;
  let base = "";
  const target = {
    settings: storage.settings,
    get base() {
      return base;
    },
    async start() {
      const port = await freePort();
      running = await startServer(parseEnv({ ...storage.settings, ...SETTINGS, ADMIN_API_KEY: TARGET_KEY, PORT: String(port) }), pino({ level: "silent" }));
      base = `http://127.0.0.1:${port}`;
    },
    async stop() {
      await running?.close();
      running = undefined;
    },
    async close() {
      await target.stop();
      await storage.close();
    },
  };
  await target.start();
  for (const name of DOMAINS) await api(target.base, TARGET_KEY, "POST", "/api/v1/domains", { name });
  await target.stop();
  return target;
}

type Run = { code: number; out: string; err: string };

/** The real CLI (`pnpm importer migrate …`) in this process, in `dir`; `interruptAfter`: how many batches before Ctrl-C. */
async function migrate(settings: Record<string, string>, url: string, extra: string[] = [], options: { interrupt?: boolean; key?: string } = {}): Promise<Run> {
  let out = "";
  let err = "";
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk, _e, done) {
        add(String(chunk));
        done();
      },
    });
  const code = await runCli(
    ["migrate", "--from", "phpshort", "--url", url, "--key", options.key ?? KEY, "--user", "admin@localhost", ...extra],
    { ...settings },
    {
      stdout: sink((s) => (out += s)),
      stderr: sink((s) => (err += s)),
      // Ctrl-C at once: the run stops after its first committed batch of pages.
      ...(options.interrupt ? { onInterrupt: (stop: () => void) => stop() } : {}),
    },
  );
  return { code, out, err };
}

beforeAll(async () => {
  source = await startTestServer({ ADMIN_API_KEY: KEY, ...SETTINGS });
  const domainIds: Record<string, number> = {};
  for (const name of DOMAINS) domainIds[name] = (await api(source.base, KEY, "POST", "/api/v1/domains", { name })).id;
  const space = await api(source.base, KEY, "POST", "/api/v1/spaces", { name: "Campaigns" });
  const go = String(domainIds["go.mig.test"]);
  const s = String(domainIds["s.mig.test"]);
  const forms: Array<[string, Record<string, string>, string?]> = [
    ["plain", { url: "https://example.com/plain", domain_id: go }],
    ["titled", { url: "https://example.com/t?q=1#frag", domain_id: go, title: "Ünïcode ✓ title" }],
    [
      "geo",
      {
        url: "https://example.com/geo",
        domain_id: go,
        target_type: "1",
        "country[0][key]": "US",
        "country[0][value]": "https://us.example.com/",
        "country[1][key]": "de",
        "country[1][value]": "https://de.example.com/",
      },
    ],
    ["device", { url: "https://example.com/dev", domain_id: s, target_type: "2", "platform[0][key]": "iOS", "platform[0][value]": "https://apps.example.com/ios" }],
    ["lang", { url: "https://example.com/lang", domain_id: s, target_type: "3", "language[0][key]": "fr", "language[0][value]": "https://fr.example.com/" }],
    ["rotate", { url: "https://example.com/rot", domain_id: s, target_type: "4", "rotation[0][value]": "https://a.example.com/", "rotation[1][value]": "https://b.example.com/" }],
    ["expiring", { url: "https://example.com/exp", domain_id: go, expiration_date: future, expiration_time: "13:30", expiration_url: "https://example.com/gone" }],
    ["limited", { url: "https://example.com/lim", domain_id: go, expiration_clicks: "500" }],
    ["off", { url: "https://example.com/off", domain_id: go, disabled: "1" }],
    ["private", { url: "https://example.com/priv", domain_id: s, privacy: "1" }],
    ["spaced", { url: "https://example.com/space", domain_id: s, space_id: String(space.id) }],
    ["Case-Sensitive_1", { url: "https://example.com/case", domain_id: go }],
    ["same-alias", { url: "https://example.com/on-go", domain_id: go }],
    ["same-alias", { url: "https://example.com/on-s", domain_id: s }],
    ["secret", { url: "https://example.com/secret", domain_id: go, password: "hunter22" }, "password"],
    ["elsewhere", { url: "https://example.com/home", domain_id: String(bootstrapDomainId(source)) }, "domain"],
  ];
  for (let i = 0; i < 20; i++) forms.push([`bulk-${i}`, { url: `https://example.com/bulk/${i}`, domain_id: i % 2 ? go : s }]);
  for (const [alias, form, isRefused] of forms) {
    await api(source.base, KEY, "POST", "/api/v1/links", { alias, ...form });
    seeded.set(`${form.domain_id}/${alias}`, { form, ...(isRefused ? { isRefused } : {}) });
  }
  // Click totals as the source counts them (the visitor side's counter), set straight in its database.
  await source.database.db.execute(`update links set clicks = id * 7 where alias like 'bulk-%' or alias in ('plain', 'geo', 'limited')` as never);
}, 120_000);

afterAll(async () => {
  await source?.close();
});

/** Compares each source link with the migrated one of the same domain name and alias; prints the summary. */
function compare(sourceLinks: any[], targetLinks: any[]): { equal: number; refused: string[] } {
  const byKey = new Map(targetLinks.map((l) => [`${l.domain.name}/${l.alias}`, l]));
  const refused: string[] = [];
  let equal = 0;
  const fields = [
    "url",
    "title",
    "target_type",
    "country_target",
    "platform_target",
    "language_target",
    "rotation_target",
    "disabled",
    "password",
    "expiration_url",
    "expiration_clicks",
    "ends_at",
    "clicks",
    "created_at",
  ];
  for (const s of sourceLinks) {
    const t = byKey.get(`${s.domain.name}/${s.alias}`);
    if (!t) {
      refused.push(`${s.domain.name}/${s.alias}`);
      continue;
    }
    for (const f of fields) expect(t[f], `${s.alias}.${f}`).toEqual(s[f]);
    expect(t.privacy, `${s.alias}.privacy`).toBe(s.privacy ? 1 : 0);
    expect(t.status, `${s.alias}.status`).toBe(s.status);
    equal++;
  }
  console.log(`comparison: ${sourceLinks.length} source links, ${equal} migrated with every field equal, ${refused.length} not carried (${refused.join(", ")}); target has ${targetLinks.length}`);
  return { equal, refused };
}

describe("importer migrate --from phpshort, from a real second instance", () => {
  it("carries every link link by link, creates nothing on a second run, and resumes an interrupted one", async () => {
    const target = await openTarget();
    const dir = mkdtempSync(join(tmpdir(), "migrate-"));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const dry = await migrate(target.settings, source.base, ["--dry-run"]);
      expect(dry.err).toBe("");
      expect(dry.out).toMatch(/Dry run .*: 36 links .* 34 would be created, 0 skipped .*, 2 refused\./);
      expect(dry.out).toContain("secret: The link has a password, and the source does not reveal it");
      await target.start();
      expect(await allLinks(target.base, TARGET_KEY)).toHaveLength(0);
      await target.stop();

      const first = await migrate(target.settings, source.base);
      expect(first.err).toBe("");
      expect(first.code).toBe(0);
      expect(first.out).toMatch(/36 links — 34 created, 0 skipped \(already here, same url\), 2 refused\./);
      expect(first.out).toMatch(/elsewhere: The domain localhost:\d+ is not one of admin@localhost's domains here/);
      expect(first.out).toContain("Not carried: space not carried (1 links).");
      const csv = readFileSync(join(dir, readdirSync(dir).find((f) => f.endsWith(".refused.csv")) as string), "utf8");
      expect(
        csv
          .split("\r\n")
          .filter(Boolean)
          .map((l) => l.split(",")[0]),
      ).toEqual(["alias", "secret", "elsewhere"]);

      await target.start();
      const sourceLinks = await allLinks(source.base, KEY);
      const targetLinks = await allLinks(target.base, TARGET_KEY);
      const { equal, refused } = compare(sourceLinks, targetLinks);
      expect(equal).toBe(34);
      expect(refused.sort()).toEqual([`go.mig.test/secret`, `localhost:${source.port}/elsewhere`].sort());
      // The click totals are marked as imported: the link counts them, its rollups have no days for them.
      const geo = targetLinks.find((l) => l.alias === "geo");
      expect(geo.clicks).toBeGreaterThan(0);
      const summary = await api(target.base, TARGET_KEY, "GET", `/api/v1/stats/${geo.id}?name=summary`);
      expect(summary).toMatchObject({ clicks: 0, imported_clicks: 0 });
      // The job is an import like any other: visible with its counters.
      const jobs = await api(target.base, TARGET_KEY, "GET", "/api/v1/imports");
      expect(jobs[0]).toMatchObject({ status: "completed", created_rows: 34, failed_rows: 2, total_rows: 36 });
      await target.stop();

      const again = await migrate(target.settings, source.base);
      expect(again.code).toBe(0);
      console.log(`re-run: ${again.out.split("\n").find((l) => l.startsWith("Migrated"))}`);
      expect(again.out).toMatch(/36 links — 0 created, 34 skipped \(already here, same url\), 2 refused\./);
    } finally {
      process.chdir(cwd);
      await target.close();
    }
  }, 180_000);

  it("resumes a run stopped after its first page from the next page: no link twice, none lost", async () => {
    // 230 more links: three pages of the source's 100.
    const go = (await api(source.base, KEY, "GET", "/api/v1/domains?search=go.mig.test"))[0].id;
    const rows = Array.from({ length: 230 }, (_, i) => `https://example.com/many/${i},many-${i},${go}`).join("\n");
    const res = await fetch(`${source.base}/api/v1/imports`, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "text/csv" }, body: `url,alias,domain_id\n${rows}\n` });
    const job = ((await res.json()) as { data: { id: number } }).data;
    for (let i = 0; ; i++) {
      const j = await api(source.base, KEY, "GET", `/api/v1/imports/${job.id}`);
      if (j.status === "completed") break;
      if (i > 600) throw new Error("seed import did not finish");
      await new Promise((r) => setTimeout(r, 100));
    }
    const target = await openTarget();
    const dir = mkdtempSync(join(tmpdir(), "migrate-"));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const stopped = await migrate(target.settings, source.base, ["--batch-size", "1"], { interrupt: true });
      expect(stopped.code).toBe(1);
      expect(stopped.out).toContain("Stopped after 100 links. Run the same command again to resume job");
      const resumed = await migrate(target.settings, source.base, ["--batch-size", "1"]);
      expect(resumed.code).toBe(0);
      console.log(
        `resumed run: ${resumed.out
          .split("\n")
          .filter((l) => l.startsWith("Resuming") || l.startsWith("Migrated"))
          .join(" / ")}`,
      );
      expect(resumed.out).toMatch(/Resuming job \d+ at page cursor 2 \(100 links already done\)/);
      expect(resumed.out).toMatch(/266 links — 264 created, 0 skipped .*, 2 refused\./);
      await target.start();
      const targetLinks = await allLinks(target.base, TARGET_KEY);
      const keys = targetLinks.map((l) => `${l.domain.name}/${l.alias}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys).toHaveLength(264);
      expect(compare(await allLinks(source.base, KEY), targetLinks).equal).toBe(264);
    } finally {
      process.chdir(cwd);
      await target.close();
    }
  }, 180_000);
});

/** A phpShort-compatible server whose answers a test decides, page by page. */
async function fakeSource(answer: (page: number, req: { auth: string | undefined; path: string }) => { status: number; body?: unknown; headers?: Record<string, string> }) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const hits: string[] = [];
  const server: HttpServer = createServer((req, res) => {
    const url = new URL(req.url ?? "/", base);
    hits.push(`${url.pathname}?${url.searchParams.get("page")}`);
    const a = answer(Number(url.searchParams.get("page") ?? "1"), { auth: req.headers.authorization, path: url.pathname });
    res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
    res.end(a.body === undefined ? "" : JSON.stringify(a.body));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { base, hits, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const linkOf = (alias: string, extra: Record<string, unknown> = {}) => ({
  id: 1,
  alias,
  url: `https://example.com/${alias}`,
  domain: { id: 1, name: "go.mig.test" },
  clicks: 3,
  created_at: "2024-05-01T10:00:00.000Z",
  ...extra,
});
const pageOf = (base: string, links: unknown[], next: number | null, total: number) => ({
  data: links,
  links: { next: next === null ? null : `${base}/api/v1/links?page=${next}` },
  meta: { total },
  status: 200,
});

describe("importer migrate: source failures", () => {
  let target: Awaited<ReturnType<typeof openTarget>>;
  let cwd: string;
  beforeAll(async () => {
    target = await openTarget();
    cwd = process.cwd();
    process.chdir(mkdtempSync(join(tmpdir(), "migrate-")));
  }, 60_000);
  afterAll(async () => {
    process.chdir(cwd);
    await target?.close();
  });

  it("a wrong key: a clear error naming --key, nothing written", async () => {
    const fake = await fakeSource(() => ({ status: 401, body: { message: "Unauthenticated.", status: 401 } }));
    try {
      const run = await migrate(target.settings, fake.base);
      expect(run.code).toBe(1);
      expect(run.err).toContain("The source refused the key (401 on /api/v1/links): check --key.");
    } finally {
      await fake.close();
    }
  });

  it("429 and 503 are waited out (Retry-After honoured) and the run completes", async () => {
    const tries = new Map<number, number>();
    const fake = await fakeSource((page) => {
      const n = (tries.get(page) ?? 0) + 1;
      tries.set(page, n);
      if (page === 1 && n === 1) return { status: 429, headers: { "retry-after": "0" }, body: { message: "Too Many Attempts." } };
      if (page === 2 && n === 1) return { status: 503, body: { message: "down" } };
      return { status: 200, body: pageOf(fake.base, [linkOf(`retry-${page}`)], page < 2 ? page + 1 : null, 2) };
    });
    try {
      const run = await migrate(target.settings, fake.base);
      expect(run.err).toBe("");
      expect(run.out).toContain("The source answered 429 on /api/v1/links: waiting 0.0 s before try 2.");
      expect(run.out).toContain("The source answered 503 on /api/v1/links");
      expect(run.out).toMatch(/2 links — 2 created, 0 skipped/);
    } finally {
      await fake.close();
    }
  });

  it("a source that goes away mid-run: the pages before are committed, the same command resumes from the failed page", async () => {
    let isDown = false;
    const fake = await fakeSource((page) => {
      if (page === 2 && isDown) return { status: 400, body: { message: "gone" } };
      return { status: 200, body: pageOf(fake.base, [linkOf(`flaky-${page}a`), linkOf(`flaky-${page}b`)], page < 3 ? page + 1 : null, 6) };
    });
    try {
      isDown = true;
      const failed = await migrate(target.settings, fake.base, ["--batch-size", "1"]);
      expect(failed.code).toBe(1);
      expect(failed.err).toContain("Run the same command again to resume job");
      expect(failed.out).toContain("Stopped: 2 links of job");
      isDown = false;
      fake.hits.length = 0;
      const resumed = await migrate(target.settings, fake.base, ["--batch-size", "1"]);
      expect(resumed.out).toMatch(/Resuming job \d+ at page cursor 2 \(2 links already done\)/);
      expect(resumed.out).toMatch(/6 links — 6 created, 0 skipped/);
      expect(fake.hits.filter((h) => h.startsWith("/api/v1/links"))).not.toContain("/api/v1/links?1");
    } finally {
      await fake.close();
    }
  });

  it("pages that loop: a clear error, the job failed, the pages before it kept", async () => {
    const fake = await fakeSource((page) => ({ status: 200, body: pageOf(fake.base, [linkOf(`loop-${page}`)], page === 2 ? 1 : page + 1, 2) }));
    try {
      const run = await migrate(target.settings, fake.base);
      expect(run.code).toBe(1);
      expect(run.err).toContain("The source's page 2 says the next page is 1: its pages loop.");
      expect(run.out).toMatch(/Job \d+ failed: 1 links — 1 created/);
    } finally {
      await fake.close();
    }
  });

  it("a total that lies is reported, never trusted for stopping", async () => {
    const fake = await fakeSource((page) => ({ status: 200, body: pageOf(fake.base, [linkOf(`liar-${page}`)], page < 3 ? page + 1 : null, 1000) }));
    try {
      const run = await migrate(target.settings, fake.base);
      expect(run.code).toBe(0);
      expect(run.out).toContain("Note: the source said it had 1,000 links and gave 3; the pages, not its count, decided where to stop.");
      expect(run.out).toMatch(/3 links — 3 created/);
    } finally {
      await fake.close();
    }
  });

  it("hostile values: each bad link refused with its reason, the others carried", async () => {
    const hostile = [
      linkOf("ok-one"),
      linkOf("has space"),
      linkOf("js", { url: "javascript:alert(1)" }),
      linkOf("nul", { title: "a\u0000b" }),
      linkOf("neg", { clicks: -5 }),
      linkOf("tomorrow", { created_at: "2999-01-01T00:00:00Z" }),
      linkOf("geo-bad", { target_type: 1, country_target: [{ key: "ZZ", value: "https://example.com/" }] }),
      linkOf("geo-js", { target_type: 1, country_target: [{ key: "US", value: "javascript:alert(1)" }] }),
      linkOf("", {}),
      { alias: { $ne: 1 }, url: ["x"] },
      "not an object",
      linkOf("a".repeat(300)),
      linkOf("api"),
      linkOf("ok-two", { clicks: "12" }),
    ];
    const fake = await fakeSource(() => ({ status: 200, body: pageOf(fake.base, hostile, null, hostile.length) }));
    try {
      const run = await migrate(target.settings, fake.base);
      expect(run.code).toBe(0);
      expect(run.out).toMatch(/14 links — 2 created, 0 skipped .*, 12 refused\./);
      for (const alias of ["has space", "js", "nul", "geo-bad", "geo-js", "tomorrow", "api"]) expect(run.out).toContain(`  ${alias}: `);
      await target.start();
      const links = await allLinks(target.base, TARGET_KEY);
      const ok = links.filter((l) => l.alias.startsWith("ok-"));
      expect(ok.map((l) => [l.alias, l.clicks])).toEqual([
        ["ok-one", 3],
        ["ok-two", 12],
      ]);
      await target.stop();
    } finally {
      await fake.close();
    }
  });
});

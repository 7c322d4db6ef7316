import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startReplicatedPostgres, type ReplicatedPostgres } from "@shortener/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * CONTRACT §26 on this machine: a primary and a streaming replica (two throwaway PostgreSQL clusters)
 * and PgBouncer in transaction mode in front of the primary, all started by this file
 * (`startReplicatedPostgres`). Two API processes (one also the worker) go through PgBouncer with the
 * replica as DATABASE_READ_URL; two visitor-side processes talk to the primary directly and fill their
 * caches from the replica. Real launchers, real HTTP. Statements are counted per server with
 * pg_stat_statements; the replica is made to lag with `pg_wal_replay_pause()` and then stopped.
 *
 * Postgres only (and no TEST_DATABASE_URL needed: the clusters are its own).
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MAIN = join(ROOT, "launcher/src/main.ts");
const ADMIN_KEY = `shk_${"R".repeat(40)}`;
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const DB = "shortener";
/** Longer than a test step takes, so a paused replica stays usable while read-your-writes is checked. */
const MAX_LAG_MS = 3_000;
/** How long another process keeps a writer on the primary (replicas.ts: lag + 3 s). */
const STICKY_MS = MAX_LAG_MS + 3_000;
/** pg_stat_statements' text of the reads of links (lists, shows, the visitor side's fills). */
const LINK_READS = 'select %from "links"%';

type Launcher = { port: number; metricsPort: number; stop(): Promise<void> };
type Answer = { status: number; body: string; location: string | undefined };

const agent = new Agent({ keepAlive: true, maxSockets: 32 });
const launchers: Launcher[] = [];
let pg: ReplicatedPostgres | undefined;

function send(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: options.method ?? "GET", path: options.path, headers: options.headers ?? {}, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), location: res.headers.location }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

async function startLauncher(settings: Record<string, string>): Promise<Launcher> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    cwd: ROOT,
    env: { ...process.env, ...settings, PORT: String(port), METRICS_PORT: String(metricsPort), ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: "warn", RATE_LIMIT_PER_MINUTE: "1000000" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += String(chunk)));
  child.stderr?.on("data", (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const launcher: Launcher = {
    port,
    metricsPort,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
  launchers.push(launcher);
  for (const deadline = Date.now() + 90_000; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`launcher (${settings.SERVICES}) exited: ${output.slice(-2000)}`);
    const ready = await send(port, { path: "/readyz" }).catch(() => null);
    if (ready?.status === 200) return launcher;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`launcher (${settings.SERVICES}) did not get ready: ${output.slice(-2000)}`);
}

/** A sample of a process's /metrics: the value of `name` with exactly these labels (0 when absent). */
async function metric(launcher: Launcher, name: string, labels: string): Promise<number> {
  const text = (await send(launcher.metricsPort, { path: "/metrics" })).body;
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("read replicas and PgBouncer: two PostgreSQL clusters in streaming replication (CONTRACT §26)", () => {
  let apiA: Launcher;
  let apiB: Launcher;
  let visitorSides: Launcher[];
  let host: string;
  let domainId: number;
  let otherKey: string;

  beforeAll(async () => {
    pg = await startReplicatedPostgres();
    await pg.createDatabase(DB);
    const common = { DATABASE_READ_URL: pg.url("replica", DB), READ_MAX_LAG_MS: String(MAX_LAG_MS), DOMAIN_VERIFICATION: "off" };
    // API and worker through PgBouncer in transaction mode; LISTEN and session locks on the direct URL.
    const pooled = { ...common, DATABASE_URL: pg.url("bouncer", DB), DATABASE_DIRECT_URL: pg.url("primary", DB) };
    const direct = { ...common, DATABASE_URL: pg.url("primary", DB) };
    // All at once: they migrate the empty database in turn, under the advisory lock (on the direct connection).
    [apiA, apiB, ...visitorSides] = await Promise.all([
      startLauncher({ ...pooled, SERVICES: "api,worker" }),
      startLauncher({ ...pooled, SERVICES: "api" }),
      startLauncher({ ...direct, SERVICES: "redirect" }),
      startLauncher({ ...direct, SERVICES: "redirect" }),
    ]);
    const [domain] = (await call(apiA, "GET", "/domains")).data;
    host = domain.name;
    domainId = domain.id;
    // Another user, who only reads: the control that the replica is in use while the admin's reads are not on it.
    otherKey = (await call(apiA, "POST", "/users", { email: "reader@replicas.example", name: "Reader" })).data.api_key;
    // For a few seconds after its start a process reads everyone's requests from the primary (it may have
    // missed announcements of writes): wait until each API process reads from the replica.
    for (const api of [apiA, apiB]) {
      await until("the API process to read from the replica", async () => {
        const before = await linkReads("replica");
        await send(api.port, { path: "/api/v1/links", headers: { authorization: `Bearer ${otherKey}` } });
        return (await linkReads("replica")) > before;
      });
    }
  }, 180_000);

  afterAll(async () => {
    for (const launcher of launchers) await launcher.stop();
    agent.destroy();
    await pg?.stop();
  });

  async function call(api: Launcher, method: string, path: string, form?: Record<string, string>): Promise<any> {
    const res = await send(api.port, {
      method,
      path: `/api/v1${path}`,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
    return JSON.parse(res.body);
  }

  /** A tRPC call (no batching, no transformer): a query as GET with `input` in the query string, a mutation as POST. */
  async function trpc(api: Launcher, method: "GET" | "POST", procedure: string, input: unknown): Promise<any> {
    const json = JSON.stringify(input);
    const res = await send(api.port, {
      method,
      path: `/trpc/${procedure}${method === "GET" ? `?input=${encodeURIComponent(json)}` : ""}`,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(method === "POST" ? { "content-type": "application/json" } : {}) },
      ...(method === "POST" ? { body: json } : {}),
    });
    if (res.status >= 300) throw new Error(`tRPC ${procedure}: ${res.status} ${res.body}`);
    return (JSON.parse(res.body) as { result: { data: unknown } }).result.data;
  }

  const linkReads = (server: "primary" | "replica") => (pg as ReplicatedPostgres).statementCalls(server, DB, LINK_READS);
  const replicaUrlOf = async (id: number) => (await (pg as ReplicatedPostgres).query<{ url: string }>("replica", DB, `select url from links where id = ${id}`))[0]?.url;
  const pauseReplay = () => (pg as ReplicatedPostgres).query("replica", DB, "select pg_wal_replay_pause()");
  const resumeReplay = () => (pg as ReplicatedPostgres).query("replica", DB, "select pg_wal_replay_resume()");
  const visit = (launcher: Launcher, alias: string) => send(launcher.port, { path: `/${alias}`, headers: { host, "user-agent": BROWSER } });
  const newLink = async (api: Launcher, alias: string, extra: Record<string, string> = {}) =>
    (await call(api, "POST", "/links", { url: `https://${alias}.example/v1`, domain_id: String(domainId), alias, ...extra })).data as { id: number; url: string };

  it("API reads (lists, shows, statistics) land on the replica: the primary runs none of them", async () => {
    const made = [await newLink(apiA, "spread-1"), await newLink(apiA, "spread-2"), await newLink(apiA, "spread-3")];
    // The writer's own reads stay on the primary until a replica has replayed the creates: then they move.
    const before = await linkReads("replica");
    await until("a read on the replica", async () => {
      await call(apiA, "GET", "/links");
      return (await linkReads("replica")) > before;
    });
    const primary0 = await linkReads("primary");
    const replica0 = await linkReads("replica");
    const READS = 20;
    for (let i = 0; i < READS / 2; i++) {
      expect((await call(apiA, "GET", "/links")).data.length).toBeGreaterThanOrEqual(3);
      expect((await call(apiA, "GET", `/links/${(made[i % 3] as { id: number }).id}`)).data.alias).toMatch(/^spread-/);
    }
    await call(apiA, "GET", `/stats/${(made[0] as { id: number }).id}?name=clicks`);
    // tRPC queries (GET) too.
    expect((await trpc(apiA, "GET", "links.get", { id: (made[1] as { id: number }).id })).alias).toBe("spread-2");
    expect((await trpc(apiA, "GET", "links.list", {})).data.length).toBeGreaterThanOrEqual(3);
    expect(await linkReads("primary")).toBe(primary0);
    expect((await linkReads("replica")) - replica0).toBeGreaterThanOrEqual(READS + 2);
    expect(await metric(apiA, "shortener_db_reads_total", 'pool="replica1"')).toBeGreaterThanOrEqual(READS);
    expect(await metric(apiA, "shortener_db_replica_up", 'replica="replica1"')).toBe(1);
  });

  it("read-your-writes: a create and an update are read back at once, through either API process, while the replica is behind", async () => {
    await pauseReplay();
    try {
      // A caller who has not written reads from the paused replica, on both processes: it is in use.
      const replicaBefore = await linkReads("replica");
      for (const api of [apiA, apiB]) expect((await send(api.port, { path: "/api/v1/links", headers: { authorization: `Bearer ${otherKey}` } })).status).toBe(200);
      expect((await linkReads("replica")) - replicaBefore).toBeGreaterThanOrEqual(2);
      const link = await newLink(apiA, "ryw");
      // The replica has not replayed the create: a read from it would be a 404.
      expect(await replicaUrlOf(link.id)).toBeUndefined();
      expect((await call(apiA, "GET", `/links/${link.id}`)).data.url).toBe("https://ryw.example/v1");
      expect((await call(apiB, "GET", `/links/${link.id}`)).data.url).toBe("https://ryw.example/v1");
      await call(apiB, "PATCH", `/links/${link.id}`, { url: "https://ryw.example/v2" });
      expect((await call(apiB, "GET", `/links/${link.id}`)).data.url).toBe("https://ryw.example/v2");
      expect((await call(apiA, "GET", `/links/${link.id}`)).data.url).toBe("https://ryw.example/v2");
      // The same through tRPC: a mutation on one process, a query on the other.
      await trpc(apiA, "POST", "links.update", { id: link.id, url: "https://ryw.example/v3" });
      expect((await trpc(apiB, "GET", "links.get", { id: link.id })).url).toBe("https://ryw.example/v3");
      await call(apiB, "PATCH", `/links/${link.id}`, { url: "https://ryw.example/v2" });
      const listed = (await call(apiA, "GET", "/links?search=ryw&search_by=alias")).data as Array<{ id: number; url: string }>;
      expect(listed.find((l) => l.id === link.id)?.url).toBe("https://ryw.example/v2");
      expect(await replicaUrlOf(link.id)).toBeUndefined();
    } finally {
      await resumeReplay();
    }
  });

  it("the visitor side sees an edit, and a new link, within a second while the replica is behind", async () => {
    const link = await newLink(apiA, "edited");
    const [first, second] = visitorSides as [Launcher, Launcher];
    await until("the new link on the visitor side", async () => (await visit(first, "edited")).status === 302 && (await visit(second, "edited")).status === 302);
    expect((await visit(first, "edited")).location).toBe("https://edited.example/v1");
    expect((await visit(first, "created-later")).status).toBe(404);
    await pauseReplay();
    try {
      await call(apiB, "PATCH", `/links/${link.id}`, { url: "https://edited.example/v2" });
      await newLink(apiB, "created-later");
      const started = Date.now();
      const seen: Record<string, unknown> = {};
      while (Date.now() - started < 1000) {
        seen.first = (await visit(first, "edited")).location;
        seen.second = (await visit(second, "edited")).location;
        seen.created = (await visit(first, "created-later")).location;
        if (seen.first === "https://edited.example/v2" && seen.second === "https://edited.example/v2" && seen.created) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(seen).toEqual({ first: "https://edited.example/v2", second: "https://edited.example/v2", created: "https://created-later.example/v1" });
      expect(await replicaUrlOf(link.id)).toBe("https://edited.example/v1");
    } finally {
      await resumeReplay();
    }
  });

  it(`a replica behind by more than READ_MAX_LAG_MS is skipped: answers stay fresh, /metrics shows the lag and the skips`, { timeout: 60_000 }, async () => {
    const link = await newLink(apiA, "lagging");
    await until("the replica to replay the create", async () => (await replicaUrlOf(link.id)) !== undefined);
    await pauseReplay();
    try {
      await call(apiA, "PATCH", `/links/${link.id}`, { url: "https://lagging.example/v2" });
      const wroteAt = Date.now();
      // Past the writer's read-your-writes window on the other API process, and past the allowed lag.
      await until("the lag to exceed READ_MAX_LAG_MS", async () => (await metric(apiB, "shortener_db_replica_lag_seconds", 'replica="replica1"')) > MAX_LAG_MS / 1000);
      await new Promise((r) => setTimeout(r, Math.max(0, wroteAt + STICKY_MS + 500 - Date.now())));
      const skipped = await metric(apiB, "shortener_db_replica_skipped_total", 'replica="replica1",reason="lagging"');
      const answers = await Promise.all(Array.from({ length: 10 }, () => send(apiB.port, { path: `/api/v1/links/${link.id}`, headers: { authorization: `Bearer ${ADMIN_KEY}` } })));
      expect(answers.map((a) => [a.status, JSON.parse(a.body).data.url])).toEqual(Array.from({ length: 10 }, () => [200, "https://lagging.example/v2"]));
      expect(await replicaUrlOf(link.id)).toBe("https://lagging.example/v1");
      expect(await metric(apiB, "shortener_db_replica_skipped_total", 'replica="replica1",reason="lagging"')).toBeGreaterThanOrEqual(skipped + 10);
    } finally {
      await resumeReplay();
    }
    await until("the replica to be used again", async () => (await metric(apiB, "shortener_db_replica_lag_seconds", 'replica="replica1"')) < MAX_LAG_MS / 1000);
  });

  it("a click-limited link admits exactly its limit across two visitor-side processes", async () => {
    const LIMIT = 20;
    await newLink(apiA, "limited", { expiration_clicks: String(LIMIT) });
    const answers: Array<{ status: number; process: number }> = [];
    for (let wave = 0; wave < 3; wave++) {
      answers.push(...(await Promise.all(Array.from({ length: 20 }, async (_, i) => ({ process: i % 2, status: (await visit((visitorSides as Launcher[])[i % 2] as Launcher, "limited")).status })))));
    }
    expect(answers.filter((a) => a.status === 302)).toHaveLength(LIMIT);
    expect(answers.filter((a) => a.status === 410)).toHaveLength(60 - LIMIT);
    expect(answers.filter((a) => a.status === 302 && a.process === 0).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 302 && a.process === 1).length).toBeGreaterThan(0);
  });

  it("API and worker through PgBouncer: an import job runs to the end, and PgBouncer carried their transactions", async () => {
    const csv = `url,alias\n${Array.from({ length: 30 }, (_, i) => `https://imported.example/${i},imported-${i}`).join("\n")}\n`;
    const res = await send(apiA.port, { method: "POST", path: `/api/v1/imports?domain_id=${domainId}`, headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "text/csv" }, body: csv });
    expect(res.status).toBe(202);
    const id = (JSON.parse(res.body) as { data: { id: number } }).data.id;
    let job: { status: string; created_rows?: number } = { status: "" };
    await until("the import job to end", async () => {
      job = (await call(apiA, "GET", `/imports/${id}`)).data;
      return job.status === "completed" || job.status === "failed";
    });
    expect(job).toMatchObject({ status: "completed", created_rows: 30 });
    // Rows the worker wrote are no read-your-writes of the caller's: a replica shows them once it has replayed them.
    await until("the imported links on the other API process", async () => (await call(apiB, "GET", "/links?search=imported-29&search_by=alias")).data.length === 1);
    const stats = await (pg as ReplicatedPostgres).bouncerStats();
    expect(stats.find((s) => s.database === DB)?.totalXacts).toBeGreaterThan(100);
  });

  it("the replica stopped: every read goes to the primary with no error, on the API and the visitor side", { timeout: 60_000 }, async () => {
    const link = await newLink(apiA, "replica-gone");
    await (pg as ReplicatedPostgres).stopReplica();
    try {
      const statuses: number[] = [];
      for (const api of [apiA, apiB]) {
        for (const path of ["/links", `/links/${link.id}`, `/stats/${link.id}?name=clicks`, "/domains", "/links/export"]) {
          statuses.push((await send(api.port, { path: `/api/v1${path}`, headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status);
        }
      }
      for (const side of visitorSides) statuses.push((await visit(side, "replica-gone")).status, (await visit(side, "spread-2")).status);
      expect(statuses).toEqual([...Array.from({ length: 10 }, () => 200), 302, 302, 302, 302]);
      await until("the replica to be seen down", async () => (await metric(apiA, "shortener_db_replica_up", 'replica="replica1"')) === 0);
      expect((await call(apiA, "GET", `/links/${link.id}`)).data.alias).toBe("replica-gone");
      expect(await metric(apiA, "shortener_db_replica_skipped_total", 'replica="replica1",reason="down"')).toBeGreaterThan(0);
    } finally {
      await (pg as ReplicatedPostgres).startReplica();
    }
    await until("the replica to be back", async () => (await metric(apiA, "shortener_db_replica_up", 'replica="replica1"')) === 1);
  });
});

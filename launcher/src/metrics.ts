import { createServer, type Server } from "node:http";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { ApiRequestRecord } from "@shortener/api";
import { queryRows, sql, type Database, type ReadRouter } from "@shortener/db";
import type { ClickEvents, VisitRecord } from "@shortener/redirect";
import { serviceVersion } from "./version.ts";

/** Seconds: from a cached redirect (~0.1 ms) to a slow API list. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What a visit's status says about its outcome (CONTRACT §7): the `outcome` label of `shortener_visits_total`. */
export function visitOutcome(status: number): string {
  if (status >= 300 && status < 400) return "redirected";
  switch (status) {
    case 200:
      return "page";
    case 401:
      return "wrong_password";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 410:
      return "expired";
    case 429:
      return "rate_limited";
    case 503:
      return "unavailable";
    default:
      return status >= 500 ? "error" : "other";
  }
}

export type Pool = { name: string; database: Database; max: number };

/**
 * The Prometheus metrics of CONTRACT §16, in a registry of this process. The apps report through the
 * hooks their deps take (`onRequestDone`, `onVisitDone`, `clickEvents`, `onRows`); the gauges that
 * describe a state (clicks waiting, database connections) are read when Prometheus scrapes.
 */
export function createMetrics(version: string = serviceVersion()) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "shortener_" });
  // Which release this process runs, as Prometheus exporters say it: a gauge fixed at 1, the version a label.
  new Gauge({ name: "shortener_build_info", help: "The running release (root package.json version); always 1", labelNames: ["version"] as const, registers: [registry] }).set({ version }, 1);

  const requests = new Counter({
    name: "shortener_http_requests_total",
    help: "API requests (/api/v1, /trpc, /stats) by route pattern, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: "shortener_http_request_duration_seconds",
    help: "API request latency by route pattern, method and status",
    labelNames: ["route", "method", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: "shortener_rate_limit_rejections_total",
    help: "Requests answered 429 by a rate limit or a failed-attempt limit, by side (api, visit)",
    labelNames: ["side"] as const,
    registers: [registry],
  });
  const visits = new Counter({
    name: "shortener_visits_total",
    help: "Visits by outcome (redirected, page, not_found, expired, wrong_password, rate_limited, unavailable, error, …) and status",
    labelNames: ["outcome", "status"] as const,
    registers: [registry],
  });
  const visitSeconds = new Histogram({
    name: "shortener_visit_duration_seconds",
    help: "Visit latency by outcome",
    labelNames: ["outcome"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const clicksWritten = new Counter({ name: "shortener_clicks_written_total", help: "Clicks written to the database", registers: [registry] });
  const clickRowsWritten = new Counter({ name: "shortener_click_rows_written_total", help: "Click rows written (identical clicks share a row)", registers: [registry] });
  const clicksDropped = new Counter({ name: "shortener_clicks_dropped_total", help: "Clicks given up on after failed writes (the buffer was full)", registers: [registry] });
  const flushSeconds = new Histogram({
    name: "shortener_click_flush_duration_seconds",
    help: "Time to write one batch of clicks",
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const importRows = new Counter({
    name: "shortener_import_rows_total",
    help: "Import rows by outcome (created, skipped, failed)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });

  let clickStats: () => { pending: number; dropped: number } = () => ({ pending: 0, dropped: 0 });
  new Gauge({
    name: "shortener_clicks_buffered",
    help: "Clicks waiting in memory to be written",
    registers: [registry],
    collect() {
      this.set(clickStats().pending);
    },
  });

  const pools: Pool[] = [];
  new Gauge({
    name: "shortener_db_pool_size",
    help: "Connections a pool may open (PGlite: 1)",
    labelNames: ["pool"] as const,
    registers: [registry],
    collect() {
      for (const pool of pools) this.set({ pool: pool.name }, pool.max);
    },
  });
  new Gauge({
    name: "shortener_db_pool_connections",
    help: "This process's open database connections by pool and state (active, idle, idle in transaction, …), from pg_stat_activity",
    labelNames: ["pool", "state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const pool of pools) {
        if (pool.database.driver !== "postgres") continue;
        const rows = await withTimeout(
          queryRows<{ state: string | null; n: number }>(
            pool.database.db,
            sql`select state, count(*)::int as n from pg_stat_activity where application_name = current_setting('application_name') and pid <> pg_backend_pid() group by state`,
          ),
          1_000,
        ).catch(() => null);
        if (!rows) continue;
        // The scrape's own connection is busy running this query: count it as active.
        let active = 1;
        for (const row of rows) {
          if (row.state === "active") active += row.n;
          else this.set({ pool: pool.name, state: row.state ?? "unknown" }, row.n);
        }
        this.set({ pool: pool.name, state: "active" }, active);
      }
    },
  });
  const dbUp = new Gauge({
    name: "shortener_db_up",
    help: "1 when the database answered the scrape's probe, 0 otherwise",
    registers: [registry],
    async collect() {
      const main = pools[0];
      if (!main) return;
      const ok = await withTimeout(main.database.db.execute(sql`select 1`), 1_000).then(
        () => true,
        () => false,
      );
      dbUp.set(ok ? 1 : 0);
    },
  });

  // Read replicas (CONTRACT §26): counters kept by the router, read when Prometheus scrapes.
  let reads: ReadRouter | undefined;
  new Counter({
    name: "shortener_db_reads_total",
    help: "Statements of reads (API GET requests, the visitor side's cache fills) by the pool that ran them: primary or a replica",
    labelNames: ["pool"] as const,
    registers: [registry],
    collect() {
      if (!reads) return;
      this.reset();
      for (const [pool, n] of Object.entries(reads.stats().reads)) this.inc({ pool }, n);
    },
  });
  new Counter({
    name: "shortener_db_replica_skipped_total",
    help: "Reads that passed a replica over, by replica and reason (down: no answer; lagging: behind by more than READ_MAX_LAG_MS)",
    labelNames: ["replica", "reason"] as const,
    registers: [registry],
    collect() {
      if (!reads) return;
      this.reset();
      for (const skip of reads.stats().skipped) this.inc({ replica: skip.replica, reason: skip.reason }, skip.count);
    },
  });
  new Gauge({
    name: "shortener_db_replica_lag_seconds",
    help: "How far behind each replica was at its last check, as this process sees it (the primary's commits it is known to hold)",
    labelNames: ["replica"] as const,
    registers: [registry],
    collect() {
      if (!reads) return;
      this.reset();
      for (const replica of reads.stats().replicas) if (replica.lagMs !== null) this.set({ replica: replica.name }, replica.lagMs / 1000);
    },
  });
  new Gauge({
    name: "shortener_db_replica_up",
    help: "1 when the replica answered its last check as a replica, 0 otherwise",
    labelNames: ["replica"] as const,
    registers: [registry],
    collect() {
      if (!reads) return;
      this.reset();
      for (const replica of reads.stats().replicas) this.set({ replica: replica.name }, replica.isUp ? 1 : 0);
    },
  });

  return {
    registry,
    /** The read replicas' router, whose counters the replica metrics report. */
    setReads(router: ReadRouter): void {
      reads = router;
    },
    /** The API's per-request hook. */
    apiRequest(record: ApiRequestRecord): void {
      const labels = { route: record.route, method: record.method, status: String(record.status) };
      requests.inc(labels);
      requestSeconds.observe(labels, record.durationMs / 1000);
      if (record.status === 429) rateLimited.inc({ side: "api" });
    },
    /** The visitor side's per-visit hook. */
    visit(record: VisitRecord): void {
      const outcome = visitOutcome(record.status);
      visits.inc({ outcome, status: String(record.status) });
      visitSeconds.observe({ outcome }, record.durationMs / 1000);
      if (record.status === 429) rateLimited.inc({ side: "visit" });
    },
    clickEvents: {
      written(clicks, rows, seconds) {
        clicksWritten.inc(clicks);
        clickRowsWritten.inc(rows);
        flushSeconds.observe(seconds);
      },
      dropped(clicks) {
        clicksDropped.inc(clicks);
      },
    } satisfies ClickEvents,
    importRows(rows: { created: number; skipped: number; failed: number }): void {
      if (rows.created) importRows.inc({ outcome: "created" }, rows.created);
      if (rows.skipped) importRows.inc({ outcome: "skipped" }, rows.skipped);
      if (rows.failed) importRows.inc({ outcome: "failed" }, rows.failed);
    },
    /** Where `shortener_clicks_buffered` reads from (the visitor side's `clickStats`). */
    setClickStats(read: () => { pending: number; dropped: number }): void {
      clickStats = read;
    },
    addPool(pool: Pool): void {
      pools.push(pool);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** `GET /metrics` (Prometheus text) on its own port; every other path is a 404. */
export async function serveMetrics(metrics: Metrics, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
      res.end("Not found. Metrics are at /metrics.\n");
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      () => {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end("metrics failed\n");
      },
    );
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => ok());
  });
  return server;
}

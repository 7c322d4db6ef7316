import { readFileSync } from "node:fs";
import { request } from "node:http";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { freePort } from "@shortener/db/testing";
import { parseEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";
import { useServerStorage } from "./helpers.ts";

/**
 * CONTRACT §16 on both drivers: health on every role, Prometheus metrics on METRICS_PORT, and the
 * access log. Each server of this file runs on the same storage, one after the other (PGlite's data
 * folder takes one process at a time).
 */
const ADMIN_KEY = `shk_${"O".repeat(40)}`;
/** A whole server starts in each test: on PGlite, on a busy machine, that can take a while. */
const SLOW = 120_000;
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
const storage = useServerStorage();
/** The release, from the one place it is written (CONTRACT §22). */
const RELEASE = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

async function start(extra: Record<string, string>, lines?: string[]): Promise<{ running: RunningServer; base: string }> {
  const port = await freePort();
  const env = parseEnv({ ...storage.settings, PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, ...extra });
  const running = await startServer(env, pino({ level: "silent" }), lines ? { writeAccessLog: (line) => void lines.push(line) } : {});
  return { running, base: `http://127.0.0.1:${port}` };
}

const auth = { authorization: `Bearer ${ADMIN_KEY}` };

/** A visit with its own Host header (fetch cannot set one): the status it got. */
function visit(base: string, path: string, host: string, userAgent?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: { host, ...(userAgent ? { "user-agent": userAgent } : {}) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Creates a link on the bootstrap domain (named after the first server's port); answers that domain. */
async function createLink(base: string, alias: string): Promise<{ id: number; name: string }> {
  const domains = (await (await fetch(`${base}/api/v1/domains`, { headers: auth })).json()) as { data: Array<{ id: number; name: string }> };
  const domain = domains.data[0];
  if (!domain) throw new Error("no bootstrap domain");
  const res = await fetch(`${base}/api/v1/links`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
    body: `url=https%3A%2F%2Fexample.com%2F&alias=${alias}&domain_id=${domain.id}`,
  });
  expect(res.status).toBe(201);
  return domain;
}

describe("health on every role (CONTRACT §16)", () => {
  it.each([["redirect"], ["worker"], ["importer"], ["api"], ["api,redirect,worker"]])(
    "SERVICES=%s answers /healthz and /readyz",
    async (services) => {
      const { running, base } = await start({ SERVICES: services });
      try {
        for (const path of ["/healthz", "/readyz", "/healthz?probe=1"]) {
          const res = await fetch(`${base}${path}`);
          expect(res.status, path).toBe(200);
          expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
          expect(await res.json()).toEqual(path.startsWith("/healthz") ? { status: "ok", version: RELEASE } : { status: "ok" });
        }
        expect((await fetch(`${base}/healthz`, { method: "HEAD" })).status).toBe(200);
        expect((await fetch(`${base}/readyz`, { method: "POST" })).status).toBe(405);
      } finally {
        await running.close();
      }
    },
    SLOW,
  );

  it(
    "a role that does not run is a 404, not a crash",
    async () => {
      const { running, base } = await start({ SERVICES: "worker" });
      try {
        expect((await fetch(`${base}/api/v1/account`, { headers: auth })).status).toBe(404);
        expect((await fetch(`${base}/some-alias`)).status).toBe(404);
      } finally {
        await running.close();
      }
    },
    SLOW,
  );

  it(
    "/readyz answers 503 {status: unavailable} once the database is gone; /healthz still 200",
    async () => {
      const { running, base } = await start({ SERVICES: "redirect" });
      try {
        await running.database.close();
        const res = await fetch(`${base}/readyz`);
        expect(res.status).toBe(503);
        expect(await res.json()).toEqual({ status: "unavailable" });
        expect((await fetch(`${base}/healthz`)).status).toBe(200);
      } finally {
        await running.close().catch(() => {});
      }
    },
    SLOW,
  );
});

describe("metrics on METRICS_PORT (CONTRACT §16)", () => {
  it(
    "serves Prometheus text with requests, visits, clicks, pool use, import rows and rate-limit rejections",
    async () => {
      const metricsPort = await freePort();
      const { running, base } = await start({ METRICS_PORT: String(metricsPort), RATE_LIMIT_PER_MINUTE: "300" });
      try {
        const domain = await createLink(base, "metered");
        expect(await visit(base, "/metered", domain.name, BROWSER)).toBe(302);
        expect(await visit(base, "/no-such-alias", domain.name)).toBe(404);
        const imported = await fetch(`${base}/api/v1/imports?domain_id=${domain.id}`, {
          method: "POST",
          headers: { ...auth, "content-type": "text/csv" },
          body: `url,alias\nhttps://example.com/a,imp-a\nnot-a-url,imp-b\n`,
        });
        expect(imported.status).toBe(202);
        const jobId = ((await imported.json()) as { data: { id: number } }).data.id;
        for (let i = 0; i < 300; i++) {
          const job = ((await (await fetch(`${base}/api/v1/imports/${jobId}`, { headers: auth })).json()) as { data: { status: string } }).data;
          if (job.status === "completed" || job.status === "failed") break;
          await new Promise((r) => setTimeout(r, 100));
        }
        // Past the key's limit: 429s.
        let limited = 0;
        for (let i = 0; i < 320 && !limited; i++) if ((await fetch(`${base}/api/v1/account`, { headers: auth })).status === 429) limited++;
        expect(limited).toBe(1);

        // Clicks are written within a second (the buffer's flush interval).
        let text = "";
        for (let i = 0; i < 50; i++) {
          text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
          if (/^shortener_clicks_written_total [1-9]/m.test(text)) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(text).toMatch(/^shortener_http_requests_total\{route="\/api\/v1\/links",method="POST",status="201"\} 1$/m);
        expect(text).toMatch(/^shortener_http_request_duration_seconds_bucket\{le="\+Inf",route="\/api\/v1\/links",method="POST",status="201"\} 1$/m);
        expect(text).toMatch(/^shortener_http_requests_total\{route="\/api\/v1\/imports",method="POST",status="202"\} 1$/m);
        expect(text).toMatch(/^shortener_visits_total\{outcome="redirected",status="302"\} 1$/m);
        expect(text).toMatch(/^shortener_visits_total\{outcome="not_found",status="404"\} 1$/m);
        expect(text).toMatch(/^shortener_visit_duration_seconds_count\{outcome="redirected"\} 1$/m);
        expect(text).toMatch(/^shortener_clicks_written_total 1$/m);
        expect(text).toMatch(/^shortener_click_flush_duration_seconds_count [1-9]/m);
        expect(text).toMatch(/^shortener_clicks_buffered 0$/m);
        expect(text).toMatch(/^shortener_clicks_dropped_total 0$/m);
        expect(text).toMatch(/^shortener_import_rows_total\{outcome="created"\} 1$/m);
        expect(text).toMatch(/^shortener_import_rows_total\{outcome="failed"\} 1$/m);
        expect(text).toMatch(/^shortener_rate_limit_rejections_total\{side="api"\} 1$/m);
        expect(text).toMatch(/^shortener_db_pool_size\{pool="main"\} \d+$/m);
        expect(text).toMatch(/^shortener_db_up 1$/m);
        if (running.database.driver === "postgres") {
          expect(text).toMatch(/^shortener_db_pool_connections\{pool="main",state="active"\} [1-9]/m);
          expect(text).toMatch(/^shortener_db_pool_size\{pool="clicks"\} 8$/m);
        }
        expect(text).toMatch(/^shortener_process_resident_memory_bytes \d+/m);
        expect(text).toContain(`\nshortener_build_info{version="${RELEASE}"} 1\n`);
        // Nothing else on that port.
        expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
        // The service's own port does not serve metrics.
        expect(await visit(base, "/metrics", domain.name)).toBe(404);
      } finally {
        await running.close();
      }
    },
    SLOW,
  );

  it(
    "without METRICS_PORT nothing listens for metrics",
    async () => {
      const { running } = await start({});
      try {
        expect(running.metricsServer).toBeUndefined();
      } finally {
        await running.close();
      }
    },
    SLOW,
  );
});

describe("access log (CONTRACT §16)", () => {
  const SECRET_QUERY = "search=hunter2-secret";

  async function traffic(extra: Record<string, string>) {
    const lines: string[] = [];
    const { running, base } = await start(extra, lines);
    try {
      const domain = await createLink(base, `logged-${extra.ACCESS_LOG}`);
      await fetch(`${base}/api/v1/links?${SECRET_QUERY}`, { headers: auth });
      await fetch(`${base}/api/v1/links/999999`, { method: "PATCH", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ title: "body-secret" }) });
      await fetch(`${base}/api/v1/account`, { headers: { authorization: "Bearer shk_wrong_key_wrong_key_wrong_key_wrong" } });
      expect(await visit(base, `/logged-${extra.ACCESS_LOG}?utm=visit-query`, domain.name, BROWSER)).toBe(302);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await running.close();
    }
    return lines.map((line) => {
      expect(line.endsWith("\n")).toBe(true);
      expect(line.slice(0, -1)).not.toContain("\n");
      return JSON.parse(line) as Record<string, unknown>;
    });
  }

  it(
    "ACCESS_LOG=api (the default): one JSON line per API request, never the key, the query string or the body",
    async () => {
      const entries = await traffic({ ACCESS_LOG: "api" });
      const all = JSON.stringify(entries);
      expect(all).not.toContain(ADMIN_KEY);
      expect(all).not.toContain("hunter2");
      expect(all).not.toContain("body-secret");
      expect(all).not.toContain("shk_wrong");
      expect(entries.every((e) => e.type === "api")).toBe(true);
      expect(entries.map((e) => `${e.method} ${e.route} ${e.status}`)).toEqual([
        "GET /api/v1/domains 200",
        "POST /api/v1/links 201",
        "GET /api/v1/links 200",
        "PATCH /api/v1/links/:id 404",
        "GET /api/v1/account 401",
      ]);
      for (const entry of entries) {
        expect(Object.keys(entry).sort()).toEqual(["duration_ms", "key_id", "method", "route", "status", "time", "type"]);
        expect(new Date(entry.time as string).toISOString()).toBe(entry.time);
        expect(typeof entry.duration_ms).toBe("number");
      }
      expect(entries[0]?.key_id).toEqual(expect.any(Number));
      expect(entries.at(-1)?.key_id).toBeNull();
    },
    SLOW,
  );

  it(
    "ACCESS_LOG=all adds visits (host and path, without the query); ACCESS_LOG=off writes nothing",
    async () => {
      const entries = await traffic({ ACCESS_LOG: "all" });
      const visits = entries.filter((e) => e.type === "visit");
      expect(visits).toHaveLength(1);
      expect(visits[0]).toMatchObject({ method: "GET", path: "/logged-all", status: 302 });
      expect(JSON.stringify(visits)).not.toContain("visit-query");
      expect(entries.filter((e) => e.type === "api")).toHaveLength(5);

      expect(await traffic({ ACCESS_LOG: "off" })).toEqual([]);
    },
    SLOW,
  );
});

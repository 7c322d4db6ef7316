import { request } from "node:http";
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { freePort } from "@shortener/db/testing";
import { parseEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";
import { apiData, useServerStorage } from "./helpers.ts";

/**
 * CONTRACT §21's promise, checked end to end (must-show 4): after a run of visits from distinctive client
 * addresses — people and bots, several links, unknown aliases, a password link (wrong and right
 * passwords), a disabled and a click-limited link — with the access log on, no table of the database
 * (every column of every row, as text) and no log line holds the address, nor its IPv6 /64's text. A
 * control row planted with the address is found by the same search, so the search can fail.
 */
const ADMIN_KEY = `shk_${"N".repeat(40)}`;
const SLOW = 180_000;
const IPV4 = "203.0.113.77";
const IPV6 = "2001:db8:77:77::77";
/** The /64 of IPV6 as the client group writes it, and as any other spelling would start. */
const NEEDLES = [IPV4, "2001:db8:77:77", "2001:0db8:0077:0077"];
const BROWSERS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
];
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

const storage = useServerStorage();

type Answer = { status: number; headers: Record<string, string | string[] | undefined> };

function visit(port: number, host: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: { host, ...options.headers }, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Every row of every table of the database, as `schema.table: row-as-text` (all columns cast to text). */
async function dumpDatabase(running: RunningServer): Promise<string[]> {
  const out: string[] = [];
  const query = async (text: string): Promise<Array<Record<string, unknown>>> => {
    const result = await running.database.db.execute(text as never);
    return (Array.isArray(result) ? result : (result as { rows: Array<Record<string, unknown>> }).rows) as Array<Record<string, unknown>>;
  };
  const tables = await query(
    `select table_schema as s, table_name as t from information_schema.tables
     where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1, 2`,
  );
  expect(tables.length).toBeGreaterThan(20);
  for (const { s, t } of tables as Array<{ s: string; t: string }>) {
    const name = `"${s.replace(/"/g, '""')}"."${t.replace(/"/g, '""')}"`;
    for (const row of await query(`select x::text as row from ${name} x`)) out.push(`${s}.${t}: ${String(row.row)}`);
  }
  return out;
}

const holders = (lines: string[]) => lines.filter((line) => NEEDLES.some((needle) => line.toLowerCase().includes(needle)));

describe("no identifier is stored or logged (CONTRACT §21)", () => {
  it(
    "a run of visits from 203.0.113.77 and 2001:db8:77:77::77 leaves the addresses in no table and no log line",
    async () => {
      const port = await freePort();
      const host = `localhost:${port}`;
      const logLines: string[] = [];
      const logger = pino({ level: "trace" }, new Writable({ write: (chunk: Buffer, _enc, done) => void (logLines.push(chunk.toString()), done()) }));
      const running = await startServer(parseEnv({ ...storage.settings, PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, TRUST_PROXY: "loopback", ACCESS_LOG: "all" }), logger, {
        writeAccessLog: (line) => void logLines.push(line),
      });
      let dump: string[] = [];
      let controlId = 0;
      let isClosed = false;
      try {
        const base = `http://127.0.0.1:${port}`;
        const [domain] = (await apiData(base, ADMIN_KEY, "GET", "/api/v1/domains")) as Array<{ id: number }>;
        const link = async (form: Record<string, string>) =>
          (await apiData(base, ADMIN_KEY, "POST", "/api/v1/links", { url: "https://dest.example/", domain_id: String(domain?.id), ...form })) as { id: number; alias: string };
        const plain = await link({});
        const other = await link({ url: "https://other.example/" });
        const locked = await link({ password: "open-sesame" });
        const disabled = await link({ disabled: "1" });
        const limited = await link({ expiration_clicks: "2" });
        // The control: a link whose destination holds the address, so the search below must find it.
        controlId = (await link({ url: `https://control.example/?from=${IPV4}` })).id;

        for (const address of [IPV4, IPV6]) {
          const xff = { "x-forwarded-for": address };
          for (const agent of BROWSERS) {
            for (const target of [plain, other, limited]) {
              await visit(port, host, `/${target.alias}`, { headers: { ...xff, "user-agent": agent, referer: "https://ref.example/page", "accept-language": "fr" } });
            }
            await visit(port, host, "/", { headers: { ...xff, "user-agent": agent } });
            await visit(port, host, "/no-such-alias", { headers: { ...xff, "user-agent": agent } });
            await visit(port, host, `/${disabled.alias}`, { headers: { ...xff, "user-agent": agent } });
          }
          await visit(port, host, `/${plain.alias}`, { headers: { ...xff, "user-agent": GOOGLEBOT } });
          await visit(port, host, `/${plain.alias}`, { method: "HEAD", headers: { ...xff, "user-agent": BROWSERS[0] as string } });
          await visit(port, host, "/unknown-too", { headers: { ...xff, "user-agent": GOOGLEBOT } });
          // The password link: the form, a wrong password, the right one, then the visit with its pass.
          const form = { ...xff, "user-agent": BROWSERS[0] as string, "content-type": "application/x-www-form-urlencoded" };
          expect((await visit(port, host, `/${locked.alias}`, { headers: form })).status).toBe(200);
          expect((await visit(port, host, `/${locked.alias}`, { method: "POST", headers: form, body: "password=wrong" })).status).toBe(401);
          const right = await visit(port, host, `/${locked.alias}`, { method: "POST", headers: form, body: "password=open-sesame" });
          expect(right.status).toBe(302);
          const cookie = String(right.headers["set-cookie"] ?? "").split(";")[0] ?? "";
          expect((await visit(port, host, `/${locked.alias}`, { headers: { ...xff, "user-agent": BROWSERS[1] as string, cookie } })).status).toBe(302);
        }
        // Stopped: every buffer (clicks, orphan visits) is written.
        await running.close();
        isClosed = true;
        // Every visit was answered and logged (ACCESS_LOG=all).
        expect(logLines.filter((l) => l.includes('"type":"visit"')).length).toBeGreaterThan(30);
      } finally {
        if (!isClosed) await running.close();
      }
      // Read the storage again, with the service stopped (every buffer written).
      const reopened = await startServer(parseEnv({ ...storage.settings, PORT: String(await freePort()), ADMIN_API_KEY: ADMIN_KEY, SERVICES: "api" }), pino({ level: "silent" }));
      try {
        dump = await dumpDatabase(reopened);
      } finally {
        await reopened.close();
      }
      // The visits were recorded: people's clicks, unique visitors, bots and orphan visits are there.
      expect(dump.some((row) => row.startsWith("public.link_visitor_sets: "))).toBe(true);
      expect(dump.some((row) => row.startsWith("public.link_stats_daily: ") && row.includes(",unique,"))).toBe(true);
      expect(dump.some((row) => row.startsWith("public.domain_visits_daily: ") && row.includes(",no-such-alias,"))).toBe(true);
      // The control is found, and it is the only row that holds the address, with its audit entry (the URL it was created with, CONTRACT §24).
      const found = holders(dump);
      expect(found.map((row) => row.slice(0, 160)).sort()).toEqual([
        expect.stringMatching(new RegExp(`^public\\.audit_log: \\(\\d+,\\d+,\\d+,\\d*,\\d*,link\\.created,link,${controlId},`)),
        expect.stringMatching(new RegExp(`^public\\.links: \\(${controlId},`)),
      ]);
      expect(holders(logLines)).toEqual([]);
    },
    SLOW,
  );
});

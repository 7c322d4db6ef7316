import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY_SCOPES } from "@shortener/core";
import { formatBackupCounts, openDb, restoreEmbedded } from "@shortener/db";
import { testDriver } from "@shortener/db/testing";
import { EMBEDDED_SETTINGS } from "../src/embedded.ts";
import { apiData, bootstrapDomainId, startTestServer, type TestServer } from "./helpers.ts";

/**
 * `GET /api/v1/admin/backup` (CONTRACT §22) on both drivers: who may take a backup (an admin's key with
 * the account scope, as for user management; a dashboard session counts for nothing here), what the answer carries on the
 * embedded database, and the 409 that points to pg_dump on PostgreSQL. The backup taken under load and
 * restored is launcher/test/backup-restore.system.test.ts.
 */
const ADMIN_KEY = `shk_${"B".repeat(40)}`;
const SLOW = 120_000;
let server: TestServer;
/** Keys by who holds them. */
const keys: Record<string, string> = {};
let sessionCookie = "";

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, DOMAIN_VERIFICATION: "off" });
  const user = await apiData(server.base, ADMIN_KEY, "POST", "/api/v1/users", { email: "someone@example.com", name: "Someone" });
  const userKey = user.api_key as string;
  keys.user = userKey;
  const named = async (name: string, form: Record<string, string>) => (await apiData(server.base, ADMIN_KEY, "POST", "/api/v1/account/api-keys", { name, ...form })).api_key as string;
  keys.accountOnly = await named("account only", { scopes: "account", expires_at: new Date(Date.now() + 86_400_000).toISOString() });
  keys.allButAccount = await named("all but account", { scopes: API_KEY_SCOPES.filter((s) => s !== "account").join(" ") });
  keys.userAccount = (await apiData(server.base, userKey, "POST", "/api/v1/account/api-keys", { name: "mine", scopes: "account" })).api_key;
  const signIn = await fetch(`${server.base}/app/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: ADMIN_KEY }) });
  expect(signIn.status).toBe(200);
  sessionCookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  expect(sessionCookie).toMatch(/=/);
}, SLOW);

afterAll(async () => {
  await server?.close();
});

describe("who may take a backup", () => {
  const cases: Array<[string, string, number, string, () => Record<string, string>]> = [
    ["no key", "GET", 401, "unauthenticated", () => ({})],
    ["an unknown key", "GET", 401, "unauthenticated", () => ({ authorization: `Bearer shk_${"x".repeat(40)}` })],
    ["a user's full key (not an admin)", "GET", 403, "forbidden", () => ({ authorization: `Bearer ${keys.user}` })],
    ["a user's named key with the account scope", "GET", 403, "forbidden", () => ({ authorization: `Bearer ${keys.userAccount}` })],
    ["the admin's named key with every scope but account", "GET", 403, "forbidden", () => ({ authorization: `Bearer ${keys.allButAccount}` })],
    ["the admin's dashboard session, without a key", "GET", 401, "unauthenticated", () => ({ cookie: sessionCookie })],
    ["the admin's key, with POST", "POST", 405, "method_not_allowed", () => ({ authorization: `Bearer ${ADMIN_KEY}` })],
  ];
  it.each(cases)("%s → %s %i", async (_name, method, status, code, headers) => {
    const res = await fetch(`${server.base}/api/v1/admin/backup`, { method, headers: headers() });
    const body = (await res.json()) as { code: string; status: number };
    expect([res.status, body.code, body.status]).toEqual([status, code, status]);
    expect(res.headers.get("content-disposition")).toBeNull();
  });
});

describe(`the admin's key on ${testDriver()}`, () => {
  if (testDriver() === "postgres") {
    it("answers 409: PostgreSQL is backed up with pg_dump", async () => {
      const res = await fetch(`${server.base}/api/v1/admin/backup`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      const body = (await res.json()) as { message: string; code: string };
      expect([res.status, body.code]).toEqual([409, "conflict"]);
      expect(body.message).toMatch(/pg_dump.*docs\/backups\.md/);
    });
    return;
  }

  it(
    "streams a gzip file with a dated name and its counts, which restores into an empty folder",
    async () => {
      const link = await apiData(server.base, ADMIN_KEY, "POST", "/api/v1/links", { url: "https://example.com/backed-up", alias: "backed-up", domain_id: String(bootstrapDomainId(server)) });
      const before = new Date();
      // HEAD answers the same headers, and no body.
      const head = await fetch(`${server.base}/api/v1/admin/backup`, { method: "HEAD", headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect([head.status, head.headers.get("content-type"), await head.text()]).toEqual([200, "application/gzip", ""]);
      // An admin's named key with the account scope (and an expiry) is enough, as for user management.
      const res = await fetch(`${server.base}/api/v1/admin/backup`, { headers: { authorization: `Bearer ${keys.accountOnly}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/gzip");
      expect(res.headers.get("cache-control")).toBe("no-store");
      const name = /^attachment; filename="(shortener-backup-(\d{8})T(\d{6})Z\.tar\.gz)"$/.exec(res.headers.get("content-disposition") ?? "");
      expect(name?.[2]).toBe(before.toISOString().slice(0, 10).replace(/-/g, ""));
      // Two users (the admin, Someone); the admin's key, Someone's, and three named ones; the service's own domain; one link.
      const counts = { users: 2, apiKeys: 5, domains: 1, links: 1, clicks: 0 };
      expect(res.headers.get("shortener-backup-counts")).toBe(formatBackupCounts(counts));
      const dir = mkdtempSync(join(tmpdir(), "backup-endpoint-"));
      try {
        const file = join(dir, name?.[1] ?? "backup.tar.gz");
        await pipeline(Readable.fromWeb(res.body as never), createWriteStream(file));
        expect(statSync(file).size).toBeGreaterThan(100_000);
        const restored = await restoreEmbedded(file, join(dir, "data"), { pgliteSettings: EMBEDDED_SETTINGS });
        expect(restored.counts).toEqual(counts);
        const database = await openDb({ dataDir: join(dir, "data"), pgliteSettings: EMBEDDED_SETTINGS });
        try {
          const { rows } = await (database.pglite as NonNullable<typeof database.pglite>).query<{ alias: string; url: string }>("select alias, url from links where id = $1", [link.id]);
          expect(rows).toEqual([{ alias: "backed-up", url: "https://example.com/backed-up" }]);
        } finally {
          await database.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});

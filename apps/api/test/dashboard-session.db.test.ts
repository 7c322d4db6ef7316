import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importErrors } from "@shortener/db";
import { FAILED_TRY_LIMIT } from "@shortener/web-guard";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

/**
 * The dashboard's sessions (CONTRACT §19, docs/adr/0028-dashboard.md): sign-in with a password or a
 * one-time key, the cookie, the CSRF guard on tRPC mutations, sign-out (one and everywhere), the
 * failed-try limit on sign-in (§15), and the static files at /app/.
 */
let api: TestApi;
let dist: string;

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), "shortener-web-dist-"));
  mkdirSync(join(dist, "assets"));
  writeFileSync(join(dist, "index.html"), `<!doctype html><title>Dashboard</title><script type="module" src="/app/assets/index-abc123.js"></script>${" ".repeat(600)}`);
  writeFileSync(join(dist, "assets", "index-abc123.js"), `console.log("dashboard");${"//".repeat(400)}`);
  // trustProxy: a request may say it came over HTTPS (X-Forwarded-Proto), as behind a TLS proxy.
  api = await createTestApi({ trustProxy: true, dashboardDir: dist }, { failedTryLimit: FAILED_TRY_LIMIT });
});
afterAll(async () => {
  await api?.close();
  rmSync(dist, { recursive: true, force: true });
});

type Answer = { status: number; body: any; headers: Record<string, unknown> };

async function inject(method: InjectOptions["method"], url: string, options: { json?: unknown; cookie?: string; csrf?: string; headers?: Record<string, string>; ip?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  if (options.csrf) headers["x-csrf-token"] = options.csrf;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  const res = await api.app.inject({
    method,
    url,
    headers,
    ...(options.ip ? { remoteAddress: options.ip } : {}),
    ...(options.json !== undefined ? { payload: JSON.stringify(options.json) } : {}),
  });
  const isJson = String(res.headers["content-type"] ?? "").startsWith("application/json");
  return { status: res.statusCode, body: isJson ? res.json() : res.body, headers: res.headers };
}

/** The `name=value` part of a Set-Cookie header, to send back. */
function cookieOf(answer: Answer): string {
  const header = String(answer.headers["set-cookie"] ?? "");
  return header.split(";", 1)[0] ?? "";
}

async function signInWithKey(apiKey: string, ip?: string) {
  const res = await inject("POST", "/app/session", { json: { api_key: apiKey }, ...(ip ? { ip } : {}) });
  return { res, cookie: cookieOf(res), csrf: res.body?.data?.csrf_token as string };
}

describe("signing in", () => {
  it("a user without a password signs in once with an API key: a signed HttpOnly, SameSite=Lax cookie for 30 days", async () => {
    const user = await api.user();
    const { res, cookie, csrf } = await signInWithKey(user.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: user.id, email: user.email, has_password: false });
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const header = String(res.headers["set-cookie"]);
    expect(header).toMatch(/^shortener_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; /);
    expect(header).toContain("HttpOnly");
    expect(header).toContain("SameSite=Lax");
    expect(header).toContain("Path=/");
    expect(header).toContain(`Max-Age=${30 * 24 * 60 * 60}`);
    expect(header).not.toContain("Secure");
    expect(res.headers["cache-control"]).toBe("no-store");
    // The session works on /trpc: a query needs no CSRF token.
    const me = await inject("GET", "/trpc/auth.me", { cookie });
    expect(me.status).toBe(200);
    expect(me.body.result.data).toMatchObject({ id: user.id, has_password: false, csrf_token: csrf });
  });

  it("over HTTPS the cookie is Secure", async () => {
    const user = await api.user();
    const res = await inject("POST", "/app/session", { json: { api_key: user.apiKey }, headers: { "x-forwarded-proto": "https" } });
    expect(res.status).toBe(200);
    expect(String(res.headers["set-cookie"])).toContain("; Secure");
  });

  it("sets a password, then signs in with it (email in any case); the key no longer signs in", async () => {
    const user = await api.user();
    const { cookie, csrf } = await signInWithKey(user.apiKey);
    // A mutation without the CSRF header is refused, and changes nothing.
    const refused = await inject("POST", "/trpc/auth.setPassword", { cookie, json: { password: "correct horse battery" } });
    expect(refused.status).toBe(403);
    expect((await inject("GET", "/trpc/auth.me", { cookie })).body.result.data.has_password).toBe(false);
    const tooShort = await inject("POST", "/trpc/auth.setPassword", { cookie, csrf, json: { password: "short" } });
    expect(tooShort.status).toBe(400);
    expect(tooShort.body.error.data.fieldErrors).toEqual({ password: ["The password must be at least 10 characters."] });
    expect((await inject("GET", "/trpc/auth.me", { cookie })).body.result.data.has_password).toBe(false);
    const set = await inject("POST", "/trpc/auth.setPassword", { cookie, csrf, json: { password: "correct horse battery" } });
    expect(set.status).toBe(200);
    expect(set.body.result.data).toEqual({ has_password: true });

    expect((await signInWithKey(user.apiKey)).res.status).toBe(401);
    const wrong = await inject("POST", "/app/session", { json: { email: user.email, password: "wrong horse battery" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: "Unauthenticated.", code: "unauthenticated", status: 401 });
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    const right = await inject("POST", "/app/session", { json: { email: user.email.toUpperCase(), password: "correct horse battery" } });
    expect(right.status).toBe(200);
    expect(right.body.data).toMatchObject({ id: user.id, has_password: true });

    // Changing it needs the current one.
    const second = { cookie: cookieOf(right), csrf: right.body.data.csrf_token as string };
    const noCurrent = await inject("POST", "/trpc/auth.setPassword", { ...second, json: { password: "another good password" } });
    expect(noCurrent.status).toBe(400);
    expect(JSON.stringify(noCurrent.body)).toContain("current_password");
    const changed = await inject("POST", "/trpc/auth.setPassword", { ...second, json: { current_password: "correct horse battery", password: "another good password" } });
    expect(changed.status).toBe(200);
  });

  it("an unknown email and a wrong password get the same 401; sign-in takes JSON only", async () => {
    const unknown = await inject("POST", "/app/session", { json: { email: "nobody@example.test", password: "whatever it is" } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe("unauthenticated");
    const form = await api.app.inject({ method: "POST", url: "/app/session", headers: { "content-type": "application/x-www-form-urlencoded" }, payload: "email=a%40b.c&password=x" });
    expect(form.statusCode).toBe(415);
  });
});

describe("the session on /trpc", () => {
  it("hostile sign-in bodies are 4xx, never 5xx: NUL bytes in any field, wrong types, oversized passwords", async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ email: "a\u0000b@example.test", password: "whatever it is" }, 422, "email"],
      [{ email: "a@example.test", password: "pass\u0000word" }, 422, "password"],
      [{ api_key: "shk_\u0000" }, 422, "api_key"],
      [{ email: "a@example.test", password: "x".repeat(100_000) }, 422, "password"],
      [{ email: { $ne: 1 }, password: 5 }, 422, "email"],
    ];
    for (const [json, status, field] of cases) {
      const res = await inject("POST", "/app/session", { json, ip: "203.0.113.77" });
      expect(res.status, JSON.stringify(json).slice(0, 80)).toBe(status);
      expect(Object.keys(res.body.message)).toContain(field);
    }
  });

  it("mutations need the session's CSRF token; queries do not; a bearer key needs none", async () => {
    const owner = await createOwner(api);
    const { cookie, csrf } = await signInWithKey(owner.user.apiKey);
    const input = { url: "https://example.org/dash", domain_id: owner.domain.id, alias: `d${Date.now().toString(36)}` };
    expect((await inject("POST", "/trpc/links.create", { cookie, json: input })).status).toBe(403);
    expect((await inject("POST", "/trpc/links.create", { cookie, csrf: "x".repeat(32), json: input })).status).toBe(403);
    const created = await inject("POST", "/trpc/links.create", { cookie, csrf, json: input });
    expect(created.status).toBe(200);
    expect(created.body.result.data).toMatchObject({ alias: input.alias, url: "https://example.org/dash" });
    const list = await inject("GET", `/trpc/links.list?input=${encodeURIComponent(JSON.stringify({ search: input.alias, search_by: "alias" }))}`, { cookie });
    expect(list.status).toBe(200);
    expect(list.body.result.data.data.map((l: { alias: string }) => l.alias)).toEqual([input.alias]);
    // Sessions are limited like keys: the limit headers are there.
    expect(list.headers["x-ratelimit-limit"]).toBeDefined();
  });

  it("the reserved alias `app` is refused through the dashboard's tRPC too (CONTRACT §4)", async () => {
    const owner = await createOwner(api);
    const { cookie, csrf } = await signInWithKey(owner.user.apiKey);
    for (const alias of ["app", "APP"]) {
      const res = await inject("POST", "/trpc/links.create", { cookie, csrf, json: { url: "https://example.org/", domain_id: owner.domain.id, alias } });
      expect(res.status, alias).toBe(400);
      expect(JSON.stringify(res.body.error.data), alias).toContain("alias");
    }
  });

  it("a forged or unknown cookie is a 401", async () => {
    const user = await api.user();
    const { cookie } = await signInWithKey(user.apiKey);
    const [name, value = ""] = cookie.split("=");
    const forged = `${name}=${value.slice(0, 43)}.${"A".repeat(43)}`;
    expect((await inject("GET", "/trpc/auth.me", { cookie: forged })).status).toBe(401);
    expect((await inject("GET", "/trpc/auth.me", { cookie: "shortener_session=nonsense" })).status).toBe(401);
  });

  it("signing out ends that session and clears the cookie; signing out everywhere ends them all", async () => {
    const user = await api.user();
    const a = await signInWithKey(user.apiKey);
    const b = await signInWithKey(user.apiKey);
    const c = await signInWithKey(user.apiKey);
    // Signing out is a mutation too: it needs the CSRF token.
    expect((await inject("DELETE", "/app/session", { cookie: a.cookie })).status).toBe(403);
    const out = await inject("DELETE", "/app/session", { cookie: a.cookie, csrf: a.csrf });
    expect(out.status).toBe(200);
    expect(String(out.headers["set-cookie"])).toMatch(/^shortener_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax/);
    expect((await inject("GET", "/trpc/auth.me", { cookie: a.cookie })).status).toBe(401);
    expect((await inject("GET", "/trpc/auth.me", { cookie: b.cookie })).status).toBe(200);

    const everywhere = await inject("POST", "/trpc/auth.logoutEverywhere", { cookie: b.cookie, csrf: b.csrf, json: {} });
    expect(everywhere.status).toBe(200);
    expect(everywhere.body.result.data).toEqual({ revoked: 2 });
    expect((await inject("GET", "/trpc/auth.me", { cookie: b.cookie })).status).toBe(401);
    expect((await inject("GET", "/trpc/auth.me", { cookie: c.cookie })).status).toBe(401);
    // The API key itself still works.
    expect((await api.call(user, "GET", "/api/v1/account")).status).toBe(200);
  });
});

describe("signed-in devices (auth.sessions, auth.revokeSession)", () => {
  const chromeOnWindows = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
  async function signInAs(apiKey: string, userAgent: string) {
    const res = await inject("POST", "/app/session", { json: { api_key: apiKey }, headers: { "user-agent": userAgent } });
    return { cookie: cookieOf(res), csrf: res.body?.data?.csrf_token as string };
  }

  it("lists the user's sessions with the browser each signed in with, marks the asking one, and never shows a token", async () => {
    const user = await api.user();
    const laptop = await signInAs(user.apiKey, chromeOnWindows);
    await signInAs(user.apiKey, "Agent\u0000With\nControls");
    const other = await api.user();
    await signInAs(other.apiKey, "Theirs/1");

    const listed = await inject("GET", "/trpc/auth.sessions", { cookie: laptop.cookie });
    expect(listed.status).toBe(200);
    const rows = listed.body.result.data as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.user_agent, r.current]).sort()).toEqual([
      ["Agent With Controls", false],
      [chromeOnWindows, true],
    ]);
    expect(Object.keys(rows[0] ?? {}).sort()).toEqual(["created_at", "current", "expires_at", "id", "last_seen_at", "user_agent"]);
    // With a bearer key the same list, none of them current.
    const viaKey = await inject("GET", "/trpc/auth.sessions", { headers: { authorization: `Bearer ${user.apiKey}` } });
    expect((viaKey.body.result.data as Array<{ current: boolean }>).map((r) => r.current)).toEqual([false, false]);
  });

  it("signs out another device (CSRF needed): that cookie is a 401 at once; another user's session is a 404; hostile ids are 400s", async () => {
    const user = await api.user();
    const laptop = await signInAs(user.apiKey, chromeOnWindows);
    const phone = await signInAs(user.apiKey, "Phone/1");
    const other = await api.user();
    const theirs = await signInAs(other.apiKey, "Theirs/1");
    const idOf = async (who: { cookie: string }, agent: string) =>
      ((await inject("GET", "/trpc/auth.sessions", { cookie: who.cookie })).body.result.data as Array<{ id: number; user_agent: string }>).find((r) => r.user_agent === agent)?.id;
    const phoneId = await idOf(laptop, "Phone/1");
    const theirsId = await idOf(theirs, "Theirs/1");

    expect((await inject("POST", "/trpc/auth.revokeSession", { cookie: laptop.cookie, json: { id: phoneId } })).status).toBe(403);
    const foreign = await inject("POST", "/trpc/auth.revokeSession", { cookie: laptop.cookie, csrf: laptop.csrf, json: { id: theirsId } });
    expect(foreign.status).toBe(404);
    expect((await inject("GET", "/trpc/auth.me", { cookie: theirs.cookie })).status).toBe(200);

    for (const id of [0, -1, 1.5, "1", "abc", null, 1e20, { id: 1 }]) {
      const res = await inject("POST", "/trpc/auth.revokeSession", { cookie: laptop.cookie, csrf: laptop.csrf, json: { id } });
      expect([id, res.status]).toEqual([id, 400]);
    }

    const out = await inject("POST", "/trpc/auth.revokeSession", { cookie: laptop.cookie, csrf: laptop.csrf, json: { id: phoneId } });
    expect(out.status).toBe(200);
    expect(out.body.result.data).toEqual({ id: phoneId, object: "session", deleted: true });
    expect((await inject("GET", "/trpc/auth.me", { cookie: phone.cookie })).status).toBe(401);
    expect((await inject("GET", "/trpc/auth.me", { cookie: laptop.cookie })).status).toBe(200);
    expect((await inject("POST", "/trpc/auth.revokeSession", { cookie: laptop.cookie, csrf: laptop.csrf, json: { id: phoneId } })).status).toBe(404);
  });
});

describe("the CSV upload and its errors file take the session too (REST, CONTRACT §12, §19)", () => {
  const CSV = "url,alias\nhttps://example.org/imported,\n";

  /**
   * `POST /api/v1/imports` with a text/csv body (or `multipart`), sent with whichever credentials are
   * given, from an address of its own (the refused keys here count as failed tries, CONTRACT §15).
   */
  async function upload(options: { cookie?: string; csrf?: string; bearer?: string; query?: string; body?: string | Buffer; type?: string; key?: string }): Promise<Answer> {
    const headers: Record<string, string> = { "content-type": options.type ?? "text/csv" };
    if (options.cookie) headers.cookie = options.cookie;
    if (options.csrf !== undefined) headers["x-csrf-token"] = options.csrf;
    if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
    if (options.key) headers["idempotency-key"] = options.key;
    const res = await api.app.inject({ method: "POST", url: `/api/v1/imports${options.query ?? ""}`, headers, payload: options.body ?? CSV, remoteAddress: "192.0.2.44" });
    return { status: res.statusCode, body: String(res.headers["content-type"]).startsWith("application/json") ? res.json() : res.body, headers: res.headers };
  }

  function multipart(fields: Record<string, string>, file: { name: string; content: string }) {
    const boundary = "----dashboard-upload-boundary";
    const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n${file.content}\r\n`, `--${boundary}--\r\n`);
    return { body: parts.join(""), type: `multipart/form-data; boundary=${boundary}` };
  }

  /** The user's import jobs, read with their key. */
  async function jobsOf(user: { apiKey: string }): Promise<Array<{ id: number; total_rows: number }>> {
    return (await api.call(user.apiKey, "GET", "/api/v1/imports?per_page=100")).body.data;
  }

  it("a session with its CSRF header uploads as its user (multipart as the dashboard sends it, or text/csv): 202, limited like a key", async () => {
    const owner = await createOwner(api);
    const { cookie, csrf } = await signInWithKey(owner.user.apiKey);
    const form = multipart({ domain_id: String(owner.domain.id) }, { name: "links.csv", content: "url\nhttps://example.org/1\nhttps://example.org/2\n" });
    const viaForm = await upload({ cookie, csrf, body: form.body, type: form.type, key: "dashboard-1" });
    expect(viaForm.status).toBe(202);
    expect(viaForm.body.data).toMatchObject({ status: "queued", domain_id: owner.domain.id, total_rows: 2 });
    expect(viaForm.headers["x-ratelimit-limit"]).toBeDefined();
    // The same Idempotency-Key through the session: the same job, as with a key.
    const again = await upload({ cookie, csrf, body: form.body, type: form.type, key: "dashboard-1" });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(viaForm.body.data.id);
    const viaCsv = await upload({ cookie, csrf, query: `?domain_id=${owner.domain.id}` });
    expect(viaCsv.status).toBe(202);
    expect((await jobsOf(owner.user)).map((j) => j.id).sort()).toEqual([viaForm.body.data.id, viaCsv.body.data.id].sort());
    // The file's own problems are the same 422s as with a key.
    const noUrl = await upload({ cookie, csrf, body: "link\nx\n" });
    expect(noUrl).toMatchObject({ status: 422, body: { message: { file: ["The file has no url column."] }, code: "validation_failed" } });
  });

  it("a session without the CSRF header, or with another session's, is a 403 and queues nothing", async () => {
    const owner = await createOwner(api);
    const mine = await signInWithKey(owner.user.apiKey);
    const other = await signInWithKey((await api.user()).apiKey);
    const missing = await upload({ cookie: mine.cookie, query: `?domain_id=${owner.domain.id}` });
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual({ message: "The CSRF token is missing or wrong: send the x-csrf-token header.", code: "forbidden", status: 403 });
    expect((await upload({ cookie: mine.cookie, csrf: other.csrf, query: `?domain_id=${owner.domain.id}` })).status).toBe(403);
    expect((await upload({ cookie: mine.cookie, csrf: "", query: `?domain_id=${owner.domain.id}` })).status).toBe(403);
    const form = multipart({ domain_id: String(owner.domain.id) }, { name: "links.csv", content: CSV });
    expect((await upload({ cookie: mine.cookie, body: form.body, type: form.type })).status).toBe(403);
    expect(await jobsOf(owner.user)).toEqual([]);
  });

  it("no key and no cookie is a 401; so are a forged cookie and a signed-out session", async () => {
    const owner = await createOwner(api);
    const none = await upload({});
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: "Unauthenticated.", code: "unauthenticated", status: 401 });
    const { cookie, csrf } = await signInWithKey(owner.user.apiKey);
    const [name, value = ""] = cookie.split("=");
    expect((await upload({ cookie: `${name}=${value.slice(0, 43)}.${"A".repeat(43)}`, csrf })).status).toBe(401);
    expect((await upload({ cookie: "shortener_session=nonsense", csrf })).status).toBe(401);
    expect((await inject("DELETE", "/app/session", { cookie, csrf })).status).toBe(200);
    expect((await upload({ cookie, csrf, query: `?domain_id=${owner.domain.id}` })).status).toBe(401);
    expect(await jobsOf(owner.user)).toEqual([]);
  });

  it("a bearer key uploads as before, needs no CSRF header, and wins over a cookie", async () => {
    const owner = await createOwner(api);
    const stranger = await api.user();
    const { cookie } = await signInWithKey(stranger.apiKey);
    const plain = await upload({ bearer: owner.user.apiKey, query: `?domain_id=${owner.domain.id}` });
    expect(plain.status).toBe(202);
    // The stranger's cookie without a CSRF header rides along: the key decides, the job is the owner's.
    const both = await upload({ bearer: owner.user.apiKey, cookie, query: `?domain_id=${owner.domain.id}` });
    expect(both.status).toBe(202);
    expect((await jobsOf(owner.user)).length).toBe(2);
    expect(await jobsOf(stranger)).toEqual([]);
    expect((await upload({ bearer: "shk_not-a-key" })).status).toBe(401);
  });

  it("the errors file is a GET: the session needs no CSRF header for it; another user's job is a 404", async () => {
    const owner = await createOwner(api);
    const job = (await upload({ bearer: owner.user.apiKey, query: `?domain_id=${owner.domain.id}` })).body.data as { id: number };
    await api.database.db.insert(importErrors).values([{ jobId: job.id, line: 2, field: "url", message: "The url must be a valid URL." }]);
    const mine = await signInWithKey(owner.user.apiKey);
    const res = await inject("GET", `/api/v1/imports/${job.id}/errors`, { cookie: mine.cookie });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="import-${job.id}-errors.csv"`);
    expect(res.body).toBe("line,field,message\r\n2,url,The url must be a valid URL.\r\n");
    const other = await signInWithKey((await api.user()).apiKey);
    expect((await inject("GET", `/api/v1/imports/${job.id}/errors`, { cookie: other.cookie })).status).toBe(404);
  });

  it("every other /api/v1 route ignores the cookie: 401 without a key, CSRF header or not", async () => {
    const owner = await createOwner(api);
    const { cookie, csrf } = await signInWithKey(owner.user.apiKey);
    const job = (await upload({ cookie, csrf, query: `?domain_id=${owner.domain.id}` })).body.data as { id: number };
    const ip = "192.0.2.45";
    expect((await inject("GET", "/api/v1/links", { cookie, ip })).status).toBe(401);
    expect((await inject("GET", "/api/v1/account", { cookie, csrf, ip })).status).toBe(401);
    expect((await inject("GET", `/api/v1/imports/${job.id}`, { cookie, ip })).status).toBe(401);
    expect((await inject("POST", "/api/v1/links", { cookie, csrf, ip, json: { url: "https://example.org/", domain_id: owner.domain.id } })).status).toBe(401);
    // A method the upload route does not have is the 405 of a route without the session: a 401 first.
    expect((await inject("DELETE", "/api/v1/imports", { cookie, csrf, ip })).status).toBe(401);
  });
});

describe("failed sign-ins are limited (CONTRACT §15)", () => {
  it("200 parallel wrong passwords: at most the limit answered 401, the rest 429; then the right one is a 429 too", async () => {
    const user = await api.user();
    const { cookie, csrf } = await signInWithKey(user.apiKey, "203.0.113.50");
    expect((await inject("POST", "/trpc/auth.setPassword", { cookie, csrf, json: { password: "the right password" } })).status).toBe(200);
    const ip = "203.0.113.77";
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => inject("POST", "/app/session", { ip, json: { email: user.email, password: `wrong password ${i}` } })));
    const statuses = answers.map((a) => a.status);
    const unauthorized = statuses.filter((s) => s === 401).length;
    const limited = statuses.filter((s) => s === 429).length;
    expect(unauthorized + limited).toBe(200);
    expect(unauthorized).toBeGreaterThan(0);
    expect(unauthorized).toBeLessThanOrEqual(FAILED_TRY_LIMIT.max);
    const refused = answers.find((a) => a.status === 429);
    expect(refused?.body).toEqual({ message: "Too Many Attempts.", code: "rate_limited", status: 429 });
    expect(Number(refused?.headers["retry-after"])).toBeGreaterThan(0);
    // The right password inside the blocked window: 429, no cookie.
    const right = await inject("POST", "/app/session", { ip, json: { email: user.email, password: "the right password" } });
    expect(right.status).toBe(429);
    expect(right.headers["set-cookie"]).toBeUndefined();
    // Another client: the account counts its guesses too (docs/adr/0032-sign-in-limits-per-account.md),
    // so it waits as well — minutes at most; sign-in-limits.db.test.ts has the rest of that rule.
    const elsewhere = await inject("POST", "/app/session", { ip: "198.51.100.9", json: { email: user.email, password: "the right password" } });
    expect(elsewhere.status).toBe(429);
    expect(Number(elsewhere.headers["retry-after"])).toBeLessThanOrEqual(600);
  });
});

describe("the dashboard's files at /app/", () => {
  it("index.html for the app's screens (SPA fallback), revalidated, with a strict CSP", async () => {
    for (const path of ["/app/", "/app/links", "/app/links/12/edit"]) {
      const res = await inject("GET", path);
      expect(res.status, path).toBe(200);
      expect(res.headers["content-type"], path).toBe("text/html; charset=utf-8");
      expect(res.headers["cache-control"], path).toBe("no-cache");
      expect(String(res.headers["content-security-policy"]), path).toContain("frame-ancestors 'none'");
      expect(String(res.body), path).toContain("/app/assets/index-abc123.js");
    }
    const bare = await inject("GET", "/app");
    expect(bare.status).toBe(301);
    expect(bare.headers.location).toBe("/app/");
  });

  it("hashed assets are cached for a year and gzipped when asked; a missing asset is a 404", async () => {
    const res = await inject("GET", "/app/assets/index-abc123.js", { headers: { "accept-encoding": "gzip, br" } });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.headers["content-encoding"]).toBe("gzip");
    const raw = await api.app.inject({ method: "GET", url: "/app/assets/index-abc123.js", headers: { "accept-encoding": "gzip" } });
    expect(gunzipSync(raw.rawPayload).toString()).toContain('console.log("dashboard")');
    expect((await inject("GET", "/app/assets/missing-000.js")).status).toBe(404);
    expect((await inject("GET", "/app/../package.json")).status).not.toBe(200);
    expect((await inject("GET", "/app/%2e%2e/%2e%2e/package.json")).status).toBe(404);
  });
});

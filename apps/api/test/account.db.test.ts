import { sql } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi, DEFAULT_API_CONFIG } from "../src/index.ts";
import { createTestApi, testFailedTries, type TestApi } from "./helpers.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});

describe("authentication (CONTRACT §1)", () => {
  it.each([
    ["no header", {}],
    ["an unknown key", { authorization: "Bearer shk_0000000000000000000000000000000000000000" }],
    ["a malformed header", { authorization: "Bearerxyz" }],
    ["basic auth", { authorization: "Basic dXNlcjpwYXNz" }],
    ["an empty bearer", { authorization: "Bearer " }],
    ["an HTML client", { accept: "text/html" }],
  ])("answers 401 JSON to %s", async (_name, headers) => {
    const res = await api.app.inject({ method: "GET", url: "/api/v1/account", headers });
    expect(res.statusCode).toBe(401);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.body).toBe('{"message":"Unauthenticated.","code":"unauthenticated","status":401}');
  });

  it("never reads the key from the query string or the body", async () => {
    const user = await api.user();
    for (const url of [`/api/v1/account?api_key=${user.apiKey}`, `/api/v1/account?token=${user.apiKey}`]) {
      expect((await api.app.inject({ method: "GET", url })).statusCode).toBe(401);
    }
    const res = await api.app.inject({
      method: "POST",
      url: "/api/v1/account/api-key",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `api_key=${user.apiKey}`,
    });
    expect(res.statusCode).toBe(401);
  });

  it("a rotated key is refused at once and the new one works", async () => {
    const user = await api.user();
    const rotated = await api.call(user, "POST", "/api/v1/account/api-key");
    expect(rotated.status).toBe(201);
    expect(rotated.body.data.api_key).toMatch(/^shk_/);
    expect((await api.call(user, "GET", "/api/v1/account")).status).toBe(401);
    expect((await api.call(rotated.body.data.api_key, "GET", "/api/v1/account")).status).toBe(200);
  });
});

describe("cached keys", () => {
  it("a key rotated on one API instance stops working on another that had it cached, within a second", async () => {
    // Its failed tries are counted in the same table as `api`'s, where this file's 401s add up: the tests' budget.
    const failedTries = testFailedTries(api.database);
    const other = await createApi({ database: api.database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, rateLimitPerMinute: 1_000_000 }, failedTries });
    await other.ready();
    try {
      const user = await api.user();
      const auth = { authorization: `Bearer ${user.apiKey}` };
      expect((await other.inject({ method: "GET", url: "/api/v1/account", headers: auth })).statusCode).toBe(200);
      expect((await api.call(user, "POST", "/api/v1/account/api-key")).status).toBe(201);
      const started = Date.now();
      let status = 200;
      while (Date.now() - started < 1000 && status === 200) {
        status = (await other.inject({ method: "GET", url: "/api/v1/account", headers: auth })).statusCode;
        if (status === 200) await new Promise((r) => setTimeout(r, 10));
      }
      expect(status).toBe(401);
    } finally {
      await other.close();
      await failedTries.close();
    }
  });

  it("a deleted user's key stops working at once", async () => {
    const admin = await api.user("admin");
    const user = await api.user();
    expect((await api.call(user, "GET", "/api/v1/account")).status).toBe(200);
    expect((await api.call(admin, "DELETE", `/api/v1/users/${user.id}`)).status).toBe(200);
    expect((await api.call(user, "GET", "/api/v1/account")).status).toBe(401);
  });
});

describe("account and users (CONTRACT §9)", () => {
  it("GET /account answers the one-resource envelope", async () => {
    const user = await api.user();
    const res = await api.call(user, "GET", "/api/v1/account");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        id: user.id,
        name: "Test User",
        email: user.email,
        role: "user",
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        // CONTRACT §24: the workspace the key acts in, after phpShort's fields.
        workspace: { id: expect.any(Number), name: "Test User", personal: true, require_sso: false, role: "owner", created_at: expect.any(String), updated_at: expect.any(String) },
      },
      status: 200,
    });
  });

  it("an admin creates a user whose key works, lists users and deletes them", async () => {
    const admin = await api.user("admin");
    const created = await api.call(admin, "POST", "/api/v1/users", { email: "New.Person@Example.test", name: "New" });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ email: "new.person@example.test", name: "New", role: "user" });
    const key = created.body.data.api_key as string;
    expect((await api.call(key, "GET", "/api/v1/account")).body.data.email).toBe("new.person@example.test");

    const list = await api.call(admin, "GET", "/api/v1/users?search=new.person&per_page=10");
    expect(list.status).toBe(200);
    expect(list.body.data.map((u: { id: number }) => u.id)).toEqual([created.body.data.id]);
    expect(list.body.meta).toMatchObject({ current_page: 1, from: 1, to: 1, total: 1, last_page: 1, per_page: 10 });
    expect(list.body.links.next).toBeNull();
    expect(list.body.links.first).toBe("http://localhost:80/api/v1/users?search=new.person&per_page=10&page=1");

    const deleted = await api.call(admin, "DELETE", `/api/v1/users/${created.body.data.id}`);
    expect(deleted.body).toEqual({ id: created.body.data.id, object: "user", deleted: true, status: 200 });
    expect((await api.call(key, "GET", "/api/v1/account")).status).toBe(401);
  });

  it("a non-admin gets 403 on admin routes", async () => {
    const user = await api.user();
    const res = await api.call(user, "GET", "/api/v1/users");
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("forbidden");
    expect((await api.call(user, "POST", "/api/v1/users", { email: "x@y.test", name: "x" })).status).toBe(403);
  });

  it("reports every failing field at once in phpShort's 422 shape", async () => {
    const admin = await api.user("admin");
    const res = await api.call(admin, "POST", "/api/v1/users", { email: "nope", name: "" });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expect(Object.keys(res.body.message).sort()).toEqual(["email", "name"]);
  });
});

describe("HTTP errors (CONTRACT §2)", () => {
  it.each([
    ["GET", "/api/v1/nothing-here", 404, "not_found"],
    ["GET", "/api/v1", 404, "not_found"],
    ["DELETE", "/api/v1/users/abc", 404, "not_found"],
    ["GET", "/api/v1/users/12", 405, "method_not_allowed"],
    ["DELETE", "/api/v1/users/99999999999", 404, "not_found"],
    ["PUT", "/api/v1/account", 405, "method_not_allowed"],
    ["DELETE", "/api/v1/account/api-key", 405, "method_not_allowed"],
  ])("%s %s → %i %s", async (method, url, status, code) => {
    const admin = await api.user("admin");
    const res = await api.call(admin, method as "GET", url);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code, status });
    if (status === 404) expect(res.body.message).toBe("Resource not found.");
  });

  it("405 names the allowed methods", async () => {
    const user = await api.user();
    const res = await api.call(user, "PATCH", "/api/v1/account");
    expect(res.headers.allow).toBe("GET");
  });

  it("a body over 1 MiB is 413, another content type 415, broken JSON 400", async () => {
    const admin = await api.user("admin");
    const auth = { authorization: `Bearer ${admin.apiKey}` };
    const big = await api.app.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      payload: `name=${"a".repeat(1024 * 1024 + 10)}`,
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ code: "payload_too_large", status: 413 });
    const xml = await api.app.inject({ method: "POST", url: "/api/v1/users", headers: { ...auth, "content-type": "application/xml" }, payload: "<a/>" });
    expect(xml.statusCode).toBe(415);
    expect(xml.json()).toMatchObject({ code: "unsupported_media_type", status: 415 });
    const json = await api.app.inject({ method: "POST", url: "/api/v1/users", headers: { ...auth, "content-type": "application/json" }, payload: "{nope" });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toMatchObject({ code: "bad_request" });
    const proto = await api.app.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { ...auth, "content-type": "application/json" },
      payload: '{"__proto__":{"role":"admin"},"email":"p@x.test","name":"p"}',
    });
    expect(proto.statusCode).toBe(201);
    expect(proto.json().data.role).toBe("user");
  });

  it("JSON bodies are accepted with the same field names", async () => {
    const admin = await api.user("admin");
    const res = await api.app.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { authorization: `Bearer ${admin.apiKey}`, "content-type": "application/json" },
      payload: JSON.stringify({ email: "json@x.test", name: "J" }),
    });
    expect(res.statusCode).toBe(201);
  });

  it("health answers without a key; readiness checks the database", async () => {
    const health = await api.app.inject({ method: "GET", url: "/healthz" });
    expect(health.json()).toEqual({ status: "ok", version: DEFAULT_API_CONFIG.version });
    expect(health.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect((await api.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
  });
});

describe("unexpected errors", () => {
  it("answer 500 Server Error. with no detail when a query fails for a reason that is not an outage", async () => {
    const broken = await createTestApi();
    const user = await broken.user();
    await broken.database.db.execute(sql`alter table users rename to users_gone`);
    const res = await broken.app.inject({ method: "GET", url: "/api/v1/account", headers: { authorization: `Bearer ${user.apiKey}` } });
    expect(res.statusCode).toBe(500);
    expect(res.body).toBe('{"message":"Server Error.","code":"internal_error","status":500}');
    expect((await broken.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
    await broken.close();
  });
});

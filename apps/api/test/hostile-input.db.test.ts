import { Writable } from "node:stream";
import type { InjectOptions } from "fastify";
import pino from "pino";
import { sql } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi, DEFAULT_API_CONFIG } from "../src/index.ts";
import { createOwner, createTestApi, testFailedTries, trpcClient, UNLIMITED, type TestApi } from "./helpers.ts";

/**
 * CONTRACT §15, hostile bytes: U+0000 anywhere — a form field, a JSON field, a nested entry, a query
 * parameter, a search, a tRPC input — is a 422 naming the field (tRPC: BAD_REQUEST with the same field
 * errors), never a 500. And no error log line holds a query's bound parameters, a hash or a secret.
 */
let api: TestApi;
let owner: Awaited<ReturnType<typeof createOwner>>;
let admin: Awaited<ReturnType<TestApi["user"]>>;
let linkId: number;
beforeAll(async () => {
  api = await createTestApi();
  owner = await createOwner(api);
  admin = await api.user("admin");
  linkId = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://dest.example/", domain_id: String(owner.domain.id) })).body.data.id;
});
afterAll(async () => {
  await api?.close();
});

const NUL = "\u0000";
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

type Case = [name: string, who: "owner" | "admin", request: () => InjectOptions, field: string];
const cases: Case[] = [
  ["link title (form)", "owner", () => ({ method: "POST", url: "/api/v1/links", payload: form({ url: "https://a.example/", domain_id: String(owner.domain.id), title: `a${NUL}b` }) }), "title"],
  [
    "link title (JSON)",
    "owner",
    () => ({
      method: "POST",
      url: "/api/v1/links",
      payload: JSON.stringify({ url: "https://a.example/", domain_id: owner.domain.id, title: `a${NUL}b` }),
      headers: { "content-type": "application/json" },
    }),
    "title",
  ],
  ["link url", "owner", () => ({ method: "POST", url: "/api/v1/links", payload: form({ url: `https://a.example/${NUL}`, domain_id: String(owner.domain.id) }) }), "url"],
  ["link alias", "owner", () => ({ method: "POST", url: "/api/v1/links", payload: form({ url: "https://a.example/", domain_id: String(owner.domain.id), alias: `x${NUL}` }) }), "alias"],
  ["link password", "owner", () => ({ method: "POST", url: "/api/v1/links", payload: form({ url: "https://a.example/", domain_id: String(owner.domain.id), password: `p${NUL}w` }) }), "password"],
  [
    "a nested targeting value",
    "owner",
    () => ({
      method: "POST",
      url: "/api/v1/links",
      payload: `url=https%3A%2F%2Fa.example%2F&domain_id=${owner.domain.id}&target_type=1&country[0][key]=US&country[0][value]=https%3A%2F%2Fb.example%2F%00`,
    }),
    "country.0.value",
  ],
  ["a field name", "owner", () => ({ method: "POST", url: "/api/v1/spaces", payload: "na%00me=x&name=ok" }), "na\uFFFDme"],
  ["link update title", "owner", () => ({ method: "PATCH", url: `/api/v1/links/${linkId}`, payload: form({ title: `t${NUL}` }) }), "title"],
  ["space name", "owner", () => ({ method: "POST", url: "/api/v1/spaces", payload: form({ name: `s${NUL}` }) }), "name"],
  ["pixel name", "owner", () => ({ method: "POST", url: "/api/v1/pixels", payload: form({ name: `p${NUL}`, type: "facebook", value: "1" }) }), "name"],
  ["domain name", "owner", () => ({ method: "POST", url: "/api/v1/domains", payload: form({ name: `d${NUL}.example` }) }), "name"],
  ["link search", "owner", () => ({ method: "GET", url: "/api/v1/links?search=a%00b" }), "search"],
  ["link search_by", "owner", () => ({ method: "GET", url: "/api/v1/links?search=a&search_by=%00" }), "search_by"],
  ["domain search", "owner", () => ({ method: "GET", url: "/api/v1/domains?search=%00" }), "search"],
  ["space search", "owner", () => ({ method: "GET", url: "/api/v1/spaces?search=x%00" }), "search"],
  ["pixel search", "owner", () => ({ method: "GET", url: "/api/v1/pixels?search=x%00" }), "search"],
  ["user search", "admin", () => ({ method: "GET", url: "/api/v1/users?search=x%00" }), "search"],
  ["user email", "admin", () => ({ method: "POST", url: "/api/v1/users", payload: form({ email: `a${NUL}@example.com`, name: "A" }) }), "email"],
  ["stats range", "owner", () => ({ method: "GET", url: `/api/v1/stats/${linkId}?name=country&from=%00` }), "from"],
  ["an unknown query parameter", "owner", () => ({ method: "GET", url: "/api/v1/links?whatever=%00" }), "whatever"],
  // Found by the fuzz test: names of Object.prototype's members were 500s.
  ["a query parameter named __proto__", "owner", () => ({ method: "GET", url: "/api/v1/webhooks?a=1&__proto__=%00" }), "__proto__"],
  ["a query parameter named constructor", "owner", () => ({ method: "GET", url: "/api/v1/links?constructor=%00" }), "constructor"],
  ["a query parameter named toString", "owner", () => ({ method: "GET", url: "/api/v1/spaces?toString=x%00" }), "toString"],
  ["a form field named hasOwnProperty", "owner", () => ({ method: "POST", url: "/api/v1/spaces", payload: "name=ok&hasOwnProperty=%00" }), "hasOwnProperty"],
  [
    "a JSON field named valueOf",
    "owner",
    () => ({ method: "POST", url: "/api/v1/spaces", payload: JSON.stringify({ name: "ok", valueOf: "\u0000" }), headers: { "content-type": "application/json" } }),
    "valueOf",
  ],
];

describe("U+0000 on REST: 422 naming the field", () => {
  it.each(cases)("%s", async (_name, who, make, field) => {
    const request = make();
    const user = who === "admin" ? admin : owner.user;
    const headers = { authorization: `Bearer ${user.apiKey}`, ...(request.payload !== undefined ? { "content-type": "application/x-www-form-urlencoded" } : {}), ...request.headers };
    const res = await api.app.inject({ ...request, headers });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ code: "validation_failed", status: 422 });
    expect(Object.keys(res.json().message)).toEqual([field]);
    expect(res.json().message[field][0]).toContain("NUL");
  });
});

describe("U+0000 on tRPC: BAD_REQUEST with the field's error", () => {
  it.each([
    ["links.create", (c: ReturnType<typeof trpcClient>) => c.links.create.mutate({ url: "https://a.example/", domain_id: owner.domain.id, title: `a${NUL}` }), "title"],
    ["links.update", (c: ReturnType<typeof trpcClient>) => c.links.update.mutate({ id: linkId, title: `a${NUL}` }), "title"],
    ["links.list (a query)", (c: ReturnType<typeof trpcClient>) => c.links.list.query({ search: `a${NUL}` }), "search"],
    ["spaces.create", (c: ReturnType<typeof trpcClient>) => c.spaces.create.mutate({ name: `s${NUL}` }), "name"],
    ["domains.list", (c: ReturnType<typeof trpcClient>) => c.domains.list.query({ search: NUL }), "search"],
  ] as const)("%s", async (_name, call, field) => {
    const client = trpcClient(api.app, owner.user.apiKey);
    const error = await (call(client) as Promise<unknown>).then(
      () => null,
      (e: unknown) => e as { data?: { code?: string; httpStatus?: number; slug?: string; fieldErrors?: Record<string, string[]> } },
    );
    expect(error?.data).toMatchObject({ code: "BAD_REQUEST", httpStatus: 400, slug: "validation_failed" });
    expect(Object.keys(error?.data?.fieldErrors ?? {})).toEqual([field]);
  });
});

describe("error logs", () => {
  it("hold no bound parameter, hash or secret, on REST and tRPC, with whatever logger the API is given", async () => {
    // A real database error whose query carries a password hash and a user's text: a check constraint
    // that refuses one title.
    await api.database.db.execute(sql`alter table links add constraint links_title_not_boom check (title is distinct from 'boom-title')`);
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const failedTries = testFailedTries(api.database);
    const app = await createApi({ database: api.database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, ...UNLIMITED }, logger: pino({ level: "info" }, stream), failedTries });
    try {
      await app.ready();
      const auth = { authorization: `Bearer ${owner.user.apiKey}` };
      const rest = await app.inject({
        method: "POST",
        url: "/api/v1/links?note=secret-query-value",
        headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
        payload: form({ url: "https://a.example/", domain_id: String(owner.domain.id), title: "boom-title", password: "hunter2-password" }),
      });
      expect(rest.statusCode).toBe(500);
      expect(rest.json()).toEqual({ message: "Server Error.", code: "internal_error", status: 500 });
      const trpc = await trpcClient(app, owner.user.apiKey)
        .links.create.mutate({ url: "https://a.example/", domain_id: owner.domain.id, title: "boom-title", password: "hunter2-password" })
        .catch((e: { data?: { httpStatus?: number } }) => e.data?.httpStatus);
      expect(trpc).toBe(500);

      const log = lines.join("");
      for (const secret of ["boom-title", "hunter2-password", "scrypt$", owner.user.apiKey, "secret-query-value", "params", "parameters", "Failing row"]) {
        expect(log, secret).not.toContain(secret);
      }
      const errors = lines.filter((l) => l.includes('"unexpected error"'));
      expect(errors).toHaveLength(2);
      for (const line of errors) {
        // drizzle wraps the driver's error (and names the SQL) on PGlite; postgres.js's comes as it is.
        const entry = JSON.parse(line);
        const pgError = entry.err.type === "DrizzleQueryError" ? entry.err.cause : entry.err;
        if (entry.err.type === "DrizzleQueryError") expect(entry.err.message).toMatch(/^Failed query: (with "l" as \()?insert into "links"/);
        expect(pgError).toMatchObject({ code: "23514", message: expect.stringContaining("links_title_not_boom") });
      }
    } finally {
      await app.close();
      await failedTries.close();
      await api.database.db.execute(sql`alter table links drop constraint links_title_not_boom`);
    }
  });
});

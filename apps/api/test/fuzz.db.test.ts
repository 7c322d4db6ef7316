import fc from "fast-check";
import type { InjectOptions } from "fastify";
import { queryRows, sql } from "@shortener/db";
import { startTestDns, type TestDns, type TestUser } from "@shortener/core/testing";
import { LINK_FIELDS } from "@shortener/vocabulary";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registeredRoutes } from "../src/app.ts";
import { appRouter } from "../src/trpc/router.ts";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

/**
 * Issue #12: a property-based fuzz of the whole API. Random form and JSON bodies, query strings,
 * content types and headers go to every `/api/v1` route the app registered (read from the app, so a new
 * route is fuzzed without touching this file) and to every tRPC procedure of the router. Whatever comes
 * in: never a 5xx, every 4xx in the contract's envelope (CONTRACT §2, §4; tRPC: its error shape with our
 * `slug`), and a rejected request on a mutating route leaves every table as it was.
 *
 * One seed a run, printed in the test names: `FUZZ_SEED=<seed> npx vitest run … fuzz` replays a failure
 * (fast-check also prints the counterexample and its `path`). `FUZZ_RUNS` scales the case counts.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const REST_RUNS = Math.max(1, Math.round(1_200 * SCALE));
const TRPC_RUNS = Math.max(1, Math.round(800 * SCALE));
const SESSION_RUNS = Math.max(1, Math.round(300 * SCALE));

type Actor = "owner" | "admin" | "stranger" | "none" | "bogus";
type IdKind = "link" | "domain" | "space" | "pixel" | "webhook" | "import" | "user";

let api: TestApi;
let dns: TestDns;
let owner: Awaited<ReturnType<typeof createOwner>>;
let admin: TestUser;
let stranger: Awaited<ReturnType<typeof createOwner>>;
/** The current keys of the actors: a fuzzed key rotation that succeeds replaces one. */
const keys: Record<Actor, string | undefined> = { owner: undefined, admin: undefined, stranger: undefined, none: undefined, bogus: "sk_not-a-real-key" };
/** Real ids by kind (the owner's first, then the stranger's); users are throwaway ones, never an actor. */
const realIds: Record<IdKind, number[]> = { link: [], domain: [], space: [], pixel: [], webhook: [], import: [], user: [] };
/** Tables a rejected request must leave alone: every table but the failed-try counters and settings. */
let tables: string[] = [];
const counts = { rest: 0, restRejectedWrites: 0, trpc: 0, trpcRejectedWrites: 0, session: 0, sessionRejected: 0, statuses: new Map<number, number>() };

async function createFixtures(who: Awaited<ReturnType<typeof createOwner>>) {
  const call = api.call.bind(api);
  const link = (await call(who.user, "POST", "/api/v1/links", { url: "https://dest.example/a", domain_id: String(who.domain.id), alias: `fz${Math.random().toString(36).slice(2, 9)}` })).body.data;
  const webhook = (await call(who.user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/fuzz", events: "link.created" })).body.data;
  const imported = await api.app.inject({
    method: "POST",
    url: "/api/v1/imports",
    headers: { authorization: `Bearer ${who.user.apiKey}`, "content-type": "text/csv" },
    payload: `url,domain_id\nhttps://imported.example/,${who.domain.id}\n`,
  });
  const importId = (imported.json() as { data?: { id?: number } }).data?.id;
  if (!link?.id || !webhook?.id || !importId) throw new Error("fixture setup failed");
  realIds.link.push(link.id);
  realIds.domain.push(who.domain.id);
  realIds.space.push(who.space.id);
  realIds.pixel.push(who.pixel.id);
  realIds.webhook.push(webhook.id);
  realIds.import.push(importId);
}

beforeAll(async () => {
  dns = await startTestDns();
  dns.setMode("servfail");
  api = await createTestApi({ dnsServers: [dns.server], dnsTimeoutMs: 200 });
  owner = await createOwner(api);
  stranger = await createOwner(api);
  admin = await api.user("admin");
  keys.owner = owner.user.apiKey;
  keys.admin = admin.apiKey;
  keys.stranger = stranger.user.apiKey;
  await createFixtures(owner);
  await createFixtures(stranger);
  for (let i = 0; i < 3; i++) realIds.user.push((await api.user()).id);
  const rows = await queryRows<{ name: string }>(api.database.db, sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`);
  tables = rows.map((r) => r.name).filter((name) => name !== "failed_tries" && name !== "settings" && !name.startsWith("__"));
}, 120_000);

/**
 * After a fuzzed delete succeeded: the owner's resources that are gone (a domain takes its links along)
 * are created again, so later cases keep reaching real rows instead of 404s. The owner's ids come first.
 */
async function replenish() {
  const key = keys.owner;
  if (!key) return;
  const call = (method: "GET" | "POST", url: string, form?: Record<string, string>) => api.call(key, method, url, form);
  const create: Array<[IdKind, string, () => Record<string, string>]> = [
    ["domain", "domains", () => ({ name: `re${Math.random().toString(36).slice(2, 10)}.example` })],
    ["space", "spaces", () => ({ name: `re${Math.random().toString(36).slice(2, 10)}` })],
    ["pixel", "pixels", () => ({ name: "p", type: "facebook", value: "1" })],
    ["webhook", "webhooks", () => ({ url: "https://hooks.example/re", events: "link.created" })],
    ["link", "links", () => ({ url: "https://dest.example/re", domain_id: String(realIds.domain[0]) })],
  ];
  for (const [kind, path, form] of create) {
    if ((await call("GET", `/api/v1/${path}/${realIds[kind][0]}`)).status !== 404) continue;
    const created = (await call("POST", `/api/v1/${path}`, form())).body.data as { id?: number } | undefined;
    if (created?.id) realIds[kind][0] = created.id;
  }
  last = undefined;
}

afterAll(async () => {
  console.log(
    `[fuzz] seed ${SEED}: ${counts.rest} REST cases (${counts.restRejectedWrites} rejected writes checked), ${counts.trpc} tRPC cases (${counts.trpcRejectedWrites} rejected mutations checked), ${counts.session} /app/session cases (${counts.sessionRejected} rejected); statuses ${JSON.stringify(Object.fromEntries([...counts.statuses].sort((a, b) => a[0] - b[0])))}`,
  );
  await api?.close();
  await dns?.close();
});

/**
 * Every row of every table, as one digest a table (the keys' `last_used_at` aside: reading with a key
 * stamps it). Equal snapshots: the request wrote nothing.
 */
async function snapshot(): Promise<Record<string, string>> {
  const parts = tables.map(
    (t) =>
      sql`select ${t}::text as t, count(*)::int as n, md5(coalesce(string_agg((to_jsonb(x) - 'last_used_at')::text, '|' order by (to_jsonb(x) - 'last_used_at')::text), '')) as h from ${sql.identifier(t)} x`,
  );
  const rows = await queryRows<{ t: string; n: number; h: string }>(api.database.db, sql.join(parts, sql` union all `));
  return Object.fromEntries(rows.map((r) => [r.t, `${r.n}:${r.h}`]));
}

/**
 * The snapshot after the last write, the "before" of the next one: reads never write, so one snapshot a
 * write is enough (a read that wrote would show up as the next rejected write's change, and fail too).
 */
let last: Record<string, string> | undefined;
async function takeSnapshot() {
  last = await snapshot();
  return last;
}
const lastSnapshot = async () => last ?? takeSnapshot();

// ——— arbitraries ———

/** Field names the schemas read (so the fuzz gets past "unknown field" into each field's rules). */
const FIELDS = [
  ...LINK_FIELDS,
  "name",
  "color",
  "type",
  "value",
  "index_page",
  "not_found_page",
  "apple_app_site_association",
  "asset_links",
  "email",
  "role",
  "events",
  "secret",
  "active",
  "page",
  "per_page",
  "search",
  "search_by",
  "sort_by",
  "sort",
  "status",
  "from",
  "to",
  "link_id",
  "format",
  "size",
  "margin",
  "fields",
  "with_title",
  "dry_run",
];

const HOSTILE = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "\uffff",
  "\u202e",
  "💥",
  "é",
  "I\u0307",
  "ß",
  "-1",
  "0",
  "1",
  "2",
  "3",
  "-0",
  "1.5",
  "1e309",
  "-1e309",
  "9007199254740993",
  "99999999999999999999999999",
  "2147483648",
  "-2147483649",
  "NaN",
  "Infinity",
  "0x1f",
  "0b1",
  "1_000",
  " 1",
  "1 ",
  "+1",
  "true",
  "false",
  "null",
  "undefined",
  "[]",
  "{}",
  "%",
  "%zz",
  "%00",
  "%%",
  "&",
  "=",
  "[",
  "]",
  "a[b]",
  "__proto__",
  "constructor",
  "toString",
  "https://example.com/",
  "http://a.example/x?y=1#z",
  "javascript:alert(1)",
  "data:text/html,x",
  "file:///etc/passwd",
  "http://localhost/",
  "http://127.0.0.1:1/",
  "https://xn--nxasmq6b.example/",
  "https://例え.テスト/",
  "//evil.example",
  "https://a.example/\n",
  "ftp://x",
  "2026-01-01",
  "2026-02-30",
  "9999-12-31",
  "0000-00-00",
  "2099-01-01T00:00:00Z",
  "00:00",
  "23:59",
  "24:00",
  "25:61",
  "1999-01-01",
  "US",
  "us",
  "ZZ",
  "iOS",
  "Android",
  "en",
  "xx",
  "link.created",
  "link.clicked",
  "import.completed",
  "facebook",
  "twitter",
  "admin",
  "user",
  "asc",
  "desc",
  "id",
  "clicks",
  "title",
  "alias",
  "10",
  "25",
  "100",
  "1000",
  "png",
  "svg",
  "csv",
  "a@example.com",
  "not-an-email",
  "fuzz.example",
  "FUZZ.EXAMPLE",
  "http://fuzz.example/",
  "1.2.3.4:8080",
  "[::1]",
  "a".repeat(300),
  "x".repeat(5_000),
  "api",
  "trpc",
  "stats",
];

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
);

/** Names of Object.prototype's members: code that keeps fields in a plain object trips on them. */
const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf", "__defineGetter__"];

const bracket = (key: string) => fc.constantFrom(key, `${key}[]`, `${key}[0]`, `${key}[1][key]`, `${key}[0][value]`, `${key}[a][b]`, `${key}[0][1][2][3]`, `${key}[__proto__]`);
const formKey = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...FIELDS).chain(bracket) },
  { weight: 1, arbitrary: fc.constantFrom("a[b][c]", "a[b][c][d][e]", "[", "]", "[]", "a]", "a[", "%00", "", ...PROTO_KEYS, "__proto__[x]", "constructor[prototype]", "a[__proto__]", "toString[a]") },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** `encodeURIComponent`, or the raw text where it throws (lone surrogates): the server gets both. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value;
  }
}

const pairs = (value: fc.Arbitrary<string>) => fc.array(fc.tuple(formKey, value), { maxLength: 8 });
const urlencoded = (value: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 6, arbitrary: pairs(value).map((ps) => ps.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&")) },
    { weight: 1, arbitrary: pairs(value).map((ps) => ps.map(([k, v]) => `${k}=${v}`).join("&")) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  );

/** Bodies at and over the form limits: 1,001 list entries, 5,001 fields, 4 levels, over 1 MiB. */
const HUGE_FORMS = ["a[]=1&".repeat(1_001), "pixel_ids[]=1&".repeat(1_001), "f=1&".repeat(5_001), "a[b][c][d][e]=1", `title=${"x".repeat(1_048_577)}`, "a[999999999]=1", "country[99999]=x"];

/** JSON values with the fields' names, hostile strings, huge numbers, nesting. */
const jsonLeaf = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 1, 2, 3, 1.5, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, -0) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);
const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 5, arbitrary: jsonLeaf },
    { weight: 1, arbitrary: fc.array(tie("v"), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom("key", "value", ...FIELDS), fc.string({ maxLength: 8 })), tie("v"), { maxKeys: 4 }) },
  ),
})).v;
const jsonObject = fc.dictionary(
  fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: fc.constantFrom(...PROTO_KEYS) }, { weight: 2, arbitrary: fc.string({ maxLength: 10 }) }),
  jsonValue,
  { maxKeys: 8 },
);

const CONTENT_TYPES = [
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=utf-8",
  "application/x-www-form-urlencoded; charset=latin1",
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json; charset=utf-16",
  "application/json;;",
  "text/plain",
  "text/csv",
  "multipart/form-data; boundary=x",
  "multipart/form-data",
  "application/xml",
  "application/octet-stream",
  "application/vnd.api+json",
  "*/*",
  "",
  ";",
  "application/x-www-form-urlencoded, application/json",
  "\u00e9/\u00e9",
];

/** A CSV upload: a header of import columns (or not), rows of hostile cells, quotes and all. */
const csvCell = hostileString.map((v) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v));
const csv = fc
  .tuple(
    fc.subarray(["url", "alias", "domain", "domain_id", "title", "password", "space_id", "pixel_ids", "disabled", "privacy", "expiration_date", "expiration_clicks", "x"], { minLength: 0 }),
    fc.array(fc.array(csvCell, { maxLength: 5 }), { maxLength: 4 }),
    fc.constantFrom("\n", "\r\n", "\r"),
  )
  .map(([header, rows, eol]) => [header.join(","), ...rows.map((row) => row.join(","))].join(eol));

/** A body: none, a form, JSON, or raw text, each with a content type that may or may not match it. */
const body = fc.oneof(
  { weight: 2, arbitrary: fc.constant<{ payload?: string; type?: string }>({}) },
  { weight: 5, arbitrary: urlencoded(hostileString).map((payload) => ({ payload, type: "application/x-www-form-urlencoded" })) },
  { weight: 4, arbitrary: jsonObject.map((value) => ({ payload: JSON.stringify(value), type: "application/json" })) },
  { weight: 1, arbitrary: jsonValue.map((value) => ({ payload: JSON.stringify(value) ?? "", type: "application/json" })) },
  { weight: 1, arbitrary: fc.constantFrom("{", "[1,", '{"url":', "\u0000", "nul\u0000l", '{"a":1}x', '{"__proto__":{"x":1}}', "1e999999").map((payload) => ({ payload, type: "application/json" })) },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE_FORMS).map((payload) => ({ payload, type: "application/x-www-form-urlencoded" })) },
  { weight: 1, arbitrary: csv.map((payload) => ({ payload, type: "text/csv" })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.oneof(
          urlencoded(hostileString),
          jsonObject.map((v) => JSON.stringify(v)),
          fc.string({ maxLength: 40 }),
        ),
        fc.constantFrom(...CONTENT_TYPES),
      )
      .map(([payload, type]) => ({ payload, type })),
  },
);

const queryString = fc.oneof(
  { weight: 2, arbitrary: fc.constant("") },
  { weight: 5, arbitrary: urlencoded(hostileString) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("page=2&per_page=10", "per_page=100&sort=asc&sort_by=clicks", "search=a&search_by=url", "status=3", "name=country", "format=svg", "a[]=1&".repeat(1_001), "x=%00"),
  },
);

const HEADER_NAMES = [
  "host",
  "idempotency-key",
  "accept",
  "accept-language",
  "x-forwarded-for",
  "x-forwarded-proto",
  "x-forwarded-host",
  "cookie",
  "origin",
  "referer",
  "user-agent",
  "if-none-match",
  "range",
  "x-request-id",
  "accept-encoding",
];
/** Header values are ASCII without CR/LF (anything else never leaves a client). */
const headerValue = fc.oneof(
  fc.constantFrom(
    "application/json",
    "text/html",
    "*/*",
    "",
    "1.2.3.4, ::1",
    "garbage",
    "en;q=x",
    "a=b; c",
    "bytes=0-1",
    "https://evil.example",
    "[::1",
    "localhost:99999",
    "a..b",
    "fuzz.example:0",
    "%00",
    "x".repeat(2_000),
  ),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 30 }),
);
const headers = fc.dictionary(fc.constantFrom(...HEADER_NAMES), headerValue, { maxKeys: 3 });

/** Who calls: mostly the owner of the real ids, sometimes another user, an admin, no key or a wrong one. */
const actor = fc.oneof({ weight: 8, arbitrary: fc.constant<Actor>("owner") }, { weight: 1, arbitrary: fc.constantFrom<Actor>("admin", "stranger", "none", "bogus") });
const AUTH_VARIANTS = ["Bearer", "bearer", "Bearer ", "Basic", "Token"];
const authScheme = fc.oneof({ weight: 12, arbitrary: fc.constant("Bearer") }, { weight: 1, arbitrary: fc.constantFrom(...AUTH_VARIANTS) });

const BOGUS_IDS = ["0", "-1", "1000000", "2147483648", "99999999999999999999", "1.5", "1e3", "abc", "%00", "%20", "0x10", "1%2F2", "%F0%9F%92%A5", "a".repeat(250)];
/** Three times in four a real id (the owner's or the stranger's), else a bogus one, chosen by `n`. */
function pick<T>(real: T[], bogus: T[], n: number): T | undefined {
  const pool = n % 4 === 0 || real.length === 0 ? bogus : real;
  return pool[Math.floor(n / 4) % pool.length];
}

const KIND_OF: Record<string, IdKind> = { links: "link", domains: "domain", spaces: "space", pixels: "pixel", webhooks: "webhook", imports: "import", users: "user", stats: "link" };
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

/**
 * Near-valid bodies: a request that would succeed, with a few fields replaced by fuzz. They get past
 * the first refusal into core's rules, the database's constraints and the serialisers.
 */
function template(kind: IdKind | "list" | "stats" | undefined, n: number): Record<string, unknown> {
  switch (kind) {
    case "list":
      return { search: `t${n % 10}`, search_by: "title", sort_by: "id", sort: "asc", per_page: 10, page: (n % 3) + 1, status: 1 };
    case "link":
      return {
        url: `https://dest.example/${n}`,
        domain_id: realIds.domain[0],
        title: `t${n}`,
        space_id: realIds.space[0],
        pixel_ids: [realIds.pixel[0]],
        target_type: 1,
        country: [{ key: "US", value: "https://us.example/" }],
        expiration_clicks: 5,
        expiration_date: "2099-01-01",
        expiration_time: "10:00",
        password: "pw",
      };
    case "domain":
      return { name: `fz${n}.example`, index_page: "https://index.example/", not_found_page: "https://nf.example/" };
    case "space":
      return { name: `s${n}`, color: (n % 6) + 1 };
    case "pixel":
      return { name: `p${n}`, type: "facebook", value: String(n) };
    case "webhook":
      return { url: `https://hooks.example/${n}`, events: ["link.created", "link.deleted"] };
    case "user":
      return { email: `fz${n}@example.com`, name: `U${n}`, role: "user" };
    default:
      return { name: "country", from: "2026-01-01", to: "2026-02-01", link_id: realIds.link[0] };
  }
}

/** An object as a form body in bracket notation (`country[0][key]=US`, `pixel_ids[]=3`). */
function toForm(value: Record<string, unknown>): string {
  const out: string[] = [];
  const walk = (key: string, v: unknown) => {
    if (Array.isArray(v)) v.forEach((item, i) => walk(item !== null && typeof item === "object" ? `${key}[${i}]` : `${key}[]`, item));
    else if (v !== null && typeof v === "object") for (const [k, inner] of Object.entries(v)) walk(`${key}[${k}]`, inner);
    else out.push(`${encode(key)}=${encode(v === null || v === undefined ? "" : String(v))}`);
  };
  for (const [k, v] of Object.entries(value)) walk(k, v);
  return out.join("&");
}

const nearValid = fc.record({
  n: fc.nat({ max: 1_000_000 }),
  overrides: fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof({ weight: 3, arbitrary: jsonLeaf }, { weight: 1, arbitrary: jsonValue }), { maxKeys: 3 }),
  drop: fc.subarray(FIELDS, { maxLength: 2 }),
  asJson: fc.boolean(),
});
type NearValid = typeof nearValid extends fc.Arbitrary<infer T> ? T : never;

function nearValidBody(kind: IdKind | "list" | "stats" | undefined, near: NearValid): Record<string, unknown> {
  const value: Record<string, unknown> = { ...template(kind, near.n), ...near.overrides };
  for (const field of near.drop) delete value[field];
  return value;
}

// ——— checks ———

function countStatus(status: number) {
  counts.statuses.set(status, (counts.statuses.get(status) ?? 0) + 1);
}

/** CONTRACT §2: `{message, code, status}`; a 422 `validation_failed` with `{field: [sentence, …]}`. */
function expectRestEnvelope(status: number, res: { headers: Record<string, unknown>; body: string }, context: string) {
  expect(String(res.headers["content-type"]), context).toMatch(/^application\/json; charset=utf-8$/);
  const json = JSON.parse(res.body) as Record<string, unknown>;
  expect(Object.keys(json).sort(), context).toEqual(["code", "message", "status"]);
  expect(json.status, context).toBe(status);
  expect(json.code, context).toMatch(/^[a-z_]+$/);
  if (status === 422) {
    expect(json.code, context).toBe("validation_failed");
    const fields = json.message as Record<string, unknown>;
    expect(typeof fields === "object" && fields !== null && !Array.isArray(fields), context).toBe(true);
    expect(Object.keys(fields).length, context).toBeGreaterThan(0);
    for (const sentences of Object.values(fields)) {
      expect(Array.isArray(sentences) && sentences.length > 0 && sentences.every((s) => typeof s === "string" && s.length > 0), context).toBe(true);
    }
  } else {
    expect(json.code, context).not.toBe("validation_failed");
    expect(typeof json.message === "string" && json.message.length > 0, context).toBe(true);
  }
}

/** tRPC's error shape (CONTRACT §11) with our `slug` and, on validation errors, REST's field errors. */
function expectTrpcError(status: number, item: unknown, context: string) {
  const error = (item as { error?: { message?: unknown; code?: unknown; data?: Record<string, unknown> } }).error;
  expect(error, context).toBeDefined();
  expect(typeof error?.message === "string" && error.message.length > 0, context).toBe(true);
  expect(typeof error?.code, context).toBe("number");
  const data = error?.data ?? {};
  expect(data.httpStatus, context).toBeLessThan(500);
  if (status !== 207) expect(data.httpStatus, context).toBe(status);
  expect(data.slug, context).toMatch(/^[a-z_]+$/);
  expect(data).not.toHaveProperty("stack");
  if (data.slug === "validation_failed") {
    const fields = data.fieldErrors as Record<string, unknown> | null;
    expect(fields && Object.keys(fields).length > 0, context).toBe(true);
  }
}

/** A successful key rotation replaces the actor's key (REST's `data`, tRPC's `result.data`, or a batch of them): later cases keep calling as that user. */
function adoptRotatedKey(who: Actor, payload: unknown) {
  for (const item of Array.isArray(payload) ? payload : [payload]) {
    const answer = item as { data?: { api_key?: unknown }; result?: { data?: { api_key?: unknown } } } | null;
    const key = answer?.data?.api_key ?? answer?.result?.data?.api_key;
    if (typeof key === "string" && who !== "none" && who !== "bogus") keys[who] = key;
  }
}

/** A real user's current key, sent as `Bearer <key>`: never a 401, whatever else the request holds. */
const hasLiveKey = (who: Actor, scheme: string) => scheme === "Bearer" && (who === "owner" || who === "admin" || who === "stranger");

function authHeader(who: Actor, scheme: string): Record<string, string> {
  const key = keys[who];
  return key === undefined ? {} : { authorization: `${scheme} ${key}` };
}

// ——— the properties ———

describe(`fuzz (seed ${SEED})`, () => {
  it("a snapshot notices a stored row (the check can fail)", async () => {
    const before = await snapshot();
    for (const table of ["links", "domains", "spaces", "pixels", "webhooks", "import_jobs", "users", "api_keys"]) expect(tables).toContain(table);
    const created = await api.call(owner.user, "POST", "/api/v1/spaces", { name: `probe${Math.random().toString(36).slice(2, 8)}` });
    expect(created.status).toBe(201);
    expect(await snapshot()).not.toEqual(before);
    await api.call(owner.user, "DELETE", `/api/v1/spaces/${created.body.data.id}`);
    // Every table is back as it was but the audit log, which keeps the create and the delete (CONTRACT §24).
    const { audit_log: auditAfter, ...after } = await snapshot();
    const { audit_log: auditBefore, ...rest } = before;
    expect(after).toEqual(rest);
    expect(Number(auditAfter?.split(":")[0])).toBe(Number(auditBefore?.split(":")[0]) + 2);
  });

  it(`REST: ${REST_RUNS} random requests to every /api/v1 route: no 5xx, 4xx in the envelope, no write when rejected (seed ${SEED})`, async () => {
    const routes = registeredRoutes(api.app).filter((r) => r.url.startsWith("/api/v1/") || r.url === "/api/v1");
    expect(routes.length).toBeGreaterThan(40);
    const request = fc.record({
      route: fc.constantFrom(...routes),
      method: fc.oneof({ weight: 9, arbitrary: fc.constant<string | undefined>(undefined) }, { weight: 1, arbitrary: fc.constantFrom<string | undefined>(...METHODS) }),
      who: actor,
      scheme: authScheme,
      query: queryString,
      body,
      headers,
      ids: fc.array(fc.nat(), { minLength: 2, maxLength: 2 }),
      near: fc.option(nearValid, { freq: 2 }),
      seedId: fc.context(),
    });
    await fc.assert(
      fc.asyncProperty(request, async (c) => {
        const kind = KIND_OF[c.route.url.split("/")[3] ?? ""];
        // The id comes from the case's own numbers, so it shrinks and replays with the seed.
        const id = pick((kind ? realIds[kind] : Object.values(realIds).flat()).map(String), BOGUS_IDS, c.ids[0] ?? 0) ?? "1";
        const path = c.route.url.replace(/:id/g, id);
        const method = (c.method ?? c.route.method) as InjectOptions["method"] & string;
        const shape = c.route.url.startsWith("/api/v1/stats") ? "stats" : method === "GET" && !c.route.url.includes(":id") ? "list" : kind;
        const near = c.near ? nearValidBody(shape, c.near) : undefined;
        const query = near && (method === "GET" || (c.ids[1] ?? 0) % 4 === 0) ? toForm(near) : c.query;
        const url = query ? `${path}?${query}` : path;
        const sent = near ? (c.near?.asJson ? { payload: JSON.stringify(near), type: "application/json" } : { payload: toForm(near), type: "application/x-www-form-urlencoded" }) : c.body;
        const hasBody = sent.payload !== undefined && method !== "GET" && method !== "HEAD";
        const requestHeaders: Record<string, string> = { ...c.headers, ...authHeader(c.who, c.scheme) };
        if (hasBody && sent.type !== undefined && sent.type !== "") requestHeaders["content-type"] = sent.type;
        const context = `${method} ${url.slice(0, 300)} as ${c.who} body ${String(sent.payload).slice(0, 300)} (${sent.type})`;
        const isWrite = method !== "GET" && method !== "HEAD" && method !== "OPTIONS";
        const before = isWrite ? await lastSnapshot() : undefined;
        const res = await api.app.inject({ method, url, headers: requestHeaders, ...(hasBody ? { payload: sent.payload } : {}) });
        counts.rest++;
        countStatus(res.statusCode);
        c.seedId.log(context);
        expect(res.statusCode, `${context}: ${res.body.slice(0, 500)}`).toBeLessThan(500);
        if (hasLiveKey(c.who, c.scheme)) expect(res.statusCode, `${context}: a live key refused`).not.toBe(401);
        if (res.statusCode >= 400 && method !== "HEAD") expectRestEnvelope(res.statusCode, res, context);
        const after = isWrite ? await takeSnapshot() : undefined;
        if (res.statusCode >= 400 && before) {
          counts.restRejectedWrites++;
          expect(after, `a rejected ${context} (${res.statusCode}) changed the database`).toEqual(before);
        }
        if (res.statusCode < 300 && c.route.url === "/api/v1/account/api-key" && method === "POST") adoptRotatedKey(c.who, res.json());
        if (res.statusCode < 300 && method === "DELETE") await replenish();
      }),
      { seed: SEED, numRuns: REST_RUNS, endOnFailure: true },
    );
  }, 600_000);

  it(`tRPC: ${TRPC_RUNS} random calls of every procedure: no 5xx, errors in tRPC's shape with a slug, no write when rejected (seed ${SEED})`, async () => {
    const procedures = Object.entries((appRouter._def as unknown as { procedures: Record<string, { _def: { type: "query" | "mutation" | "subscription" } }> }).procedures).map(([name, p]) => ({
      name,
      type: p._def.type,
    }));
    expect(procedures.length).toBeGreaterThan(30);
    const input = fc.oneof(
      { weight: 1, arbitrary: fc.constant<unknown>(undefined) },
      { weight: 4, arbitrary: jsonObject },
      { weight: 1, arbitrary: jsonValue },
      { weight: 4, arbitrary: nearValid.map((near) => ({ __near: near })) },
    );
    const call = fc.record({
      procedure: fc.constantFrom(...procedures),
      name: fc.oneof(
        { weight: 20, arbitrary: fc.constant<string | undefined>(undefined) },
        { weight: 1, arbitrary: fc.constantFrom<string | undefined>("nope", "links", "links.nope", "links.list,links.get", "__proto__.x", "links..get", "%00") },
      ),
      input,
      idKey: fc.constantFrom("id", "link_id", "id", undefined),
      idIndex: fc.nat(),
      wrongMethod: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      batch: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      rawInput: fc.oneof(
        { weight: 15, arbitrary: fc.constant<string | undefined>(undefined) },
        { weight: 1, arbitrary: fc.constantFrom<string | undefined>("{", "%00", '{"0":', "null", "[]", '"x"', "\u0000") },
      ),
      type: fc.oneof({ weight: 10, arbitrary: fc.constant<string | undefined>("application/json") }, { weight: 1, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined) }),
      who: actor,
      scheme: authScheme,
      headers,
      seedId: fc.context(),
    });
    await fc.assert(
      fc.asyncProperty(call, async (c) => {
        const name = c.name ?? c.procedure.name;
        const kind = KIND_OF[c.procedure.name.split(".")[0] ?? ""];
        const bogus: unknown[] = [0, -1, 1_000_000, 2 ** 31, 1.5, "1", "abc", null, 1e308, -0, [1], { id: 1 }];
        const near = (c.input as { __near?: NearValid } | undefined)?.__near;
        const [group, verb] = c.procedure.name.split(".");
        const shape = group === "stats" ? "stats" : verb === "list" ? "list" : kind;
        let value = near ? nearValidBody(shape, near) : c.input;
        if (c.idKey && (value === undefined || (typeof value === "object" && value !== null && !Array.isArray(value)))) {
          value = { ...(value as object | undefined), [c.idKey]: pick<unknown>(kind ? realIds[kind] : Object.values(realIds).flat(), bogus, c.idIndex) };
        }
        const isMutation = c.procedure.type === "mutation";
        const asPost = isMutation !== c.wrongMethod;
        const text = c.rawInput ?? (value === undefined ? undefined : JSON.stringify(c.batch ? { 0: value } : value));
        const path = `/trpc/${c.batch ? `${name},${name}` : name}${c.batch ? "?batch=1" : ""}`;
        const requestHeaders: Record<string, string> = { ...c.headers, ...authHeader(c.who, c.scheme) };
        let url = path;
        let payload: string | undefined;
        if (asPost) {
          payload = text;
          if (c.type !== undefined && payload !== undefined) requestHeaders["content-type"] = c.type;
        } else if (text !== undefined) {
          url += `${c.batch ? "&" : "?"}input=${encode(text)}`;
        }
        const method = asPost ? "POST" : "GET";
        const context = `${method} ${url.slice(0, 300)} as ${c.who} body ${String(payload).slice(0, 300)}`;
        const before = isMutation ? await lastSnapshot() : undefined;
        const res = await api.app.inject({ method, url, headers: requestHeaders, ...(payload !== undefined ? { payload } : {}) });
        counts.trpc++;
        countStatus(res.statusCode);
        c.seedId.log(context);
        expect(res.statusCode, `${context}: ${res.body.slice(0, 500)}`).toBeLessThan(500);
        if (hasLiveKey(c.who, c.scheme)) expect(res.statusCode, `${context}: a live key refused`).not.toBe(401);
        const json: unknown = res.body ? JSON.parse(res.body) : null;
        if (res.statusCode >= 400 || res.statusCode === 207) {
          const items = Array.isArray(json) ? json : [json];
          // An error of the HTTP layer, before tRPC reads the request (a content type no parser takes): REST's envelope.
          if (!Array.isArray(json) && !(json as { error?: unknown } | null)?.error) expectRestEnvelope(res.statusCode, res, `${context}: ${res.body.slice(0, 300)}`);
          else for (const item of items) if ((item as { error?: unknown }).error || res.statusCode !== 207) expectTrpcError(res.statusCode, item, `${context}: ${res.body.slice(0, 300)}`);
        }
        const after = isMutation ? await takeSnapshot() : undefined;
        if (res.statusCode >= 400 && before) {
          counts.trpcRejectedWrites++;
          expect(after, `a rejected ${context} (${res.statusCode}) changed the database`).toEqual(before);
        }
        if ((res.statusCode < 300 || res.statusCode === 207) && name === "account.rotateKey") adoptRotatedKey(c.who, json);
        if ((res.statusCode < 300 || res.statusCode === 207) && name.endsWith(".delete")) await replenish();
      }),
      { seed: SEED, numRuns: TRPC_RUNS, endOnFailure: true },
    );
  }, 600_000);

  it(`/app/session: ${SESSION_RUNS} random sign-ins and sign-outs: no 5xx, 4xx in the envelope, no session made or ended when rejected (seed ${SEED})`, async () => {
    // A user of this property alone (the other properties may give the owner a password or a new key):
    // without a password, its key signs in (200), so the near-valid bodies reach a real success too.
    const user = await api.user();
    const signIn = async () => {
      const res = await api.app.inject({ method: "POST", url: "/app/session", headers: { "content-type": "application/json" }, payload: JSON.stringify({ api_key: user.apiKey }) });
      if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
      const cookie = String(res.headers["set-cookie"]).split(";", 1)[0] ?? "";
      return { cookie, csrf: (res.json() as { data: { csrf_token: string } }).data.csrf_token };
    };
    /** Live sessions of the user, aimed at by the cases; one that a case signs out is replaced. */
    const sessions = [await signIn(), await signIn()];
    // The "before" of the first case: after this setup, not the last write of the properties before.
    await takeSnapshot();
    const signInTemplate = (kind: "password" | "key", n: number): Record<string, unknown> =>
      kind === "key"
        ? { api_key: [user.apiKey, `shk_${"x".repeat(40)}`, keys.owner, "sk_not-a-real-key"][n % 4] }
        : { email: [user.email, user.email.toUpperCase(), admin.email, "nobody@example.test"][n % 4], password: `a wrong password ${n}` };
    const SIGN_IN_FIELDS = ["email", "password", "api_key"];
    const sessionBody = fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .record({
            kind: fc.constantFrom<"password" | "key">("password", "key"),
            n: fc.nat(),
            overrides: fc.dictionary(fc.constantFrom(...SIGN_IN_FIELDS, ...PROTO_KEYS), fc.oneof({ weight: 3, arbitrary: jsonLeaf }, { weight: 1, arbitrary: jsonValue }), { maxKeys: 2 }),
            drop: fc.subarray(SIGN_IN_FIELDS, { maxLength: 1 }),
            asForm: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
          })
          .map((near) => {
            const value: Record<string, unknown> = { ...signInTemplate(near.kind, near.n), ...near.overrides };
            for (const field of near.drop) delete value[field];
            return near.asForm ? { payload: toForm(value), type: "application/x-www-form-urlencoded" } : { payload: JSON.stringify(value), type: "application/json" };
          }),
      },
      { weight: 3, arbitrary: body },
    );
    /** Which cookie a case sends: one of the live sessions', a forged copy of one, none, or raw bytes. */
    type CookieChoice = { kind: "live" | "forged"; index: number } | { kind: "none" } | { kind: "raw"; raw: string };
    const cookie: fc.Arbitrary<CookieChoice> = fc.oneof(
      { weight: 3, arbitrary: fc.nat().map((n): CookieChoice => ({ kind: "live", index: n % 2 })) },
      { weight: 1, arbitrary: fc.constant<CookieChoice>({ kind: "none" }) },
      {
        weight: 2,
        arbitrary: fc
          .oneof(
            fc.constantFrom(
              "shortener_session=",
              "shortener_session=%00",
              "shortener_session=a.b",
              `shortener_session=${"A".repeat(43)}.${"A".repeat(43)}`,
              'shortener_session="x"',
              "shortener_session=1; shortener_session=2",
              "=; ;",
              "shortener_session",
              `shortener_session=${"x".repeat(5_000)}`,
            ),
            headerValue.map((v) => `shortener_session=${v}`),
            headerValue,
          )
          .map((raw): CookieChoice => ({ kind: "raw", raw })),
      },
      // A live session's token with another signature: forged.
      { weight: 1, arbitrary: fc.nat().map((n): CookieChoice => ({ kind: "forged", index: n % 2 })) },
    );
    const csrf = fc.oneof(
      { weight: 3, arbitrary: fc.constant<"own" | "other" | "none">("own") },
      { weight: 1, arbitrary: fc.constantFrom<"own" | "other" | "none">("other", "none") },
      { weight: 1, arbitrary: headerValue },
    );
    const request = fc.record({
      method: fc.oneof({ weight: 2, arbitrary: fc.constant<"POST" | "DELETE">("POST") }, { weight: 1, arbitrary: fc.constant<"POST" | "DELETE">("DELETE") }),
      body: sessionBody,
      cookie,
      csrf,
      headers,
      seedId: fc.context(),
    });
    await fc.assert(
      fc.asyncProperty(request, async (c) => {
        const target = c.cookie.kind === "live" || c.cookie.kind === "forged" ? c.cookie.index : 0;
        const session = sessions[target];
        const other = sessions[1 - target];
        const requestHeaders: Record<string, string> = { ...c.headers };
        if (c.cookie.kind === "live" && session) requestHeaders.cookie = session.cookie;
        else if (c.cookie.kind === "forged" && session) requestHeaders.cookie = `${session.cookie.slice(0, session.cookie.indexOf(".") + 1)}${"B".repeat(43)}`;
        else if (c.cookie.kind === "raw") requestHeaders.cookie = c.cookie.raw;
        if (c.csrf === "own" && session) requestHeaders["x-csrf-token"] = session.csrf;
        else if (c.csrf === "other" && other) requestHeaders["x-csrf-token"] = other.csrf;
        else if (c.csrf !== "own" && c.csrf !== "other" && c.csrf !== "none") requestHeaders["x-csrf-token"] = c.csrf;
        if (c.body.payload !== undefined && c.body.type) requestHeaders["content-type"] = c.body.type;
        const context = `${c.method} /app/session cookie ${String(requestHeaders.cookie).slice(0, 120)} csrf ${String(requestHeaders["x-csrf-token"]).slice(0, 60)} body ${String(c.body.payload).slice(0, 300)} (${c.body.type})`;
        const before = await lastSnapshot();
        const res = await api.app.inject({ method: c.method, url: "/app/session", headers: requestHeaders, ...(c.body.payload !== undefined ? { payload: c.body.payload } : {}) });
        counts.session++;
        countStatus(res.statusCode);
        c.seedId.log(context);
        expect(res.statusCode, `${context}: ${res.body.slice(0, 500)}`).toBeLessThan(500);
        if (res.statusCode >= 400) {
          expectRestEnvelope(res.statusCode, res, context);
          expect(res.headers["set-cookie"], `${context}: a cookie set on a refusal`).toBeUndefined();
        }
        const after = await takeSnapshot();
        if (res.statusCode >= 400) {
          counts.sessionRejected++;
          expect(after, `a rejected ${context} (${res.statusCode}) changed the database`).toEqual(before);
        } else if (c.method === "DELETE") {
          // Signed out: that session is gone for good; a fresh one takes its place.
          expect(String(res.headers["set-cookie"]), context).toMatch(/^shortener_session=; /);
          const index = sessions.findIndex((s) => s.cookie === requestHeaders.cookie);
          if (index >= 0) sessions[index] = await signIn();
          await takeSnapshot();
        } else {
          expect(String(res.headers["set-cookie"]), context).toMatch(/^shortener_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; /);
        }
      }),
      { seed: SEED, numRuns: SESSION_RUNS, endOnFailure: true },
    );
  }, 600_000);
});

import { eq, sql } from "drizzle-orm";
import { Readable } from "node:stream";
import { readCsvRows } from "@shortener/csv";
import { EXPORT_COLUMNS, getLink, recordClicks, type Scope } from "@shortener/core";
import { links } from "@shortener/db";
import type { TestUser } from "@shortener/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEventData } from "../src/serialize/events.ts";
import { createOwner, createTestApi, trpcClient, type TestApi } from "./helpers.ts";

/** CONTRACT §17 exports: `GET /api/v1/links/export`, tRPC `links.export`, statistics as CSV. The round trip is in launcher/test/export-roundtrip.db.test.ts. */
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});

const HEADER =
  "url,alias,domain,domain_id,title,password,space_id,pixel_ids,tags,disabled,privacy,privacy_password,expiration_url,expiration_date,expiration_time,expiration_clicks,og_title,og_description,og_image,password_hash,privacy_password_hash,health,health_reason,health_checked_at";

/** RFC 4180 records of a whole file, cells unquoted. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let isQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (isQuoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') isQuoted = false;
      else cell += ch;
    } else if (ch === '"') isQuoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  expect(cell).toBe("");
  expect(row).toEqual([]);
  return rows;
}

async function exportCsv(key: string, query = "") {
  const res = await api.app.inject({ method: "GET", url: `/api/v1/links/export${query}`, headers: { authorization: `Bearer ${key}` } });
  return { status: res.statusCode, headers: res.headers, text: res.body, rows: res.statusCode === 200 ? parseCsv(res.body) : [] };
}

/** A named key of `user` with `scopes` (CONTRACT §17). */
async function keyWith(user: TestUser, scopes: Scope[]): Promise<string> {
  const res = await api.call(user, "POST", "/api/v1/account/api-keys", { name: scopes.join(" ") || "none", "scopes[]": scopes });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.api_key as string;
}

/** The rows of an export as the importer reads them (the export's header: formula neutralisation undone). */
async function importedFields(csv: string): Promise<Array<Record<string, string>>> {
  const out: Array<Record<string, string>> = [];
  for await (const row of readCsvRows(Readable.from([csv]), { columns: EXPORT_COLUMNS, ownHeader: EXPORT_COLUMNS })) {
    if (!row.fields) throw new Error(`line ${row.line}: ${row.error}`);
    out.push(row.fields);
  }
  return out;
}

async function listAliases(key: string, query: string): Promise<string[]> {
  const out: string[] = [];
  for (let page = 1; ; page++) {
    const res = await api.call(key, "GET", `/api/v1/links?per_page=100&sort=asc&page=${page}${query}`);
    expect(res.status, query).toBe(200);
    out.push(...res.body.data.map((l: { alias: string }) => l.alias));
    if (!res.body.links.next) return out;
  }
}

describe("GET /api/v1/links/export", () => {
  it("applies every §5 filter exactly as the list does", async () => {
    const o = await createOwner(api);
    const key = o.user.apiKey;
    const second = (await api.call(o.user, "POST", "/api/v1/domains", { name: `d2-${o.domain.name}` })).body.data;
    const make = async (form: Record<string, string | string[]>) =>
      (await api.call(o.user, "POST", "/api/v1/links", { url: "https://example.org/x", domain_id: String(o.domain.id), ...form })).body.data;
    await make({ title: "Spring sale", alias: "spring-1" });
    await make({ title: "spring party", space_id: String(o.space.id), alias: "party" });
    await make({ url: "https://shop.example/spring", disabled: "1" });
    await make({ pixel_ids: [String(o.pixel.id)], title: "Pixel" });
    await make({ domain_id: String(second.id), title: "elsewhere", space_id: String(o.space.id), pixel_ids: [String(o.pixel.id)] });
    const expired = await make({ title: "old spring" });
    await api.database.db
      .update(links)
      .set({ endsAt: new Date(Date.now() - 1000) })
      .where(eq(links.id, expired.id));
    // Another user's links never show.
    const other = await createOwner(api);
    await api.call(other.user, "POST", "/api/v1/links", { url: "https://example.org/x", domain_id: String(other.domain.id), title: "spring other" });

    const queries = [
      "",
      "&search=spring",
      "&search=SPRING&search_by=title",
      "&search=spring&search_by=url",
      "&search=pa&search_by=alias",
      "&status=1",
      "&status=2",
      "&status=3",
      `&space_id=${o.space.id}`,
      `&domain_id=${second.id}`,
      `&pixel_id=${o.pixel.id}`,
      `&space_id=${o.space.id}&pixel_id=${o.pixel.id}&status=1`,
      `&domain_id=${other.domain.id}`,
      "&search=nothing-matches-this",
    ];
    for (const query of queries) {
      const listed = await listAliases(key, query);
      const exported = await exportCsv(key, `?${query.slice(1)}`);
      expect(exported.status, query).toBe(200);
      expect(exported.rows[0]?.join(","), query).toBe(HEADER);
      expect(
        exported.rows.slice(1).map((r) => r[1]),
        query,
      ).toEqual(listed);
    }
  });

  it("writes each column as the importer reads it", async () => {
    const o = await createOwner(api);
    const future = new Date(Date.now() + 86_400_000 * 10).toISOString().slice(0, 10);
    const link = (
      await api.call(o.user, "POST", "/api/v1/links", {
        url: "https://example.org/a,b",
        domain_id: String(o.domain.id),
        alias: "cols",
        title: 'He said "hi",\r\nthen left',
        password: "pw",
        space_id: String(o.space.id),
        pixel_ids: [String(o.pixel.id)],
        "tags[]": ["sale", "Fall 26"],
        disabled: "1",
        privacy: "1",
        expiration_url: "https://example.org/later",
        expiration_date: future,
        expiration_time: "07:05",
        expiration_clicks: "9",
        og_title: '=Card, "quoted"',
        og_description: "Two\nlines",
        og_image: "https://img.example/c.png",
      })
    ).body.data;
    const { rows, headers } = await exportCsv(o.user.apiKey, "?include=secrets");
    expect(headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(headers["cache-control"]).toBe("private, no-store");
    expect(headers["shortener-export-secrets"]).toBe("included");
    const [row] = rows.slice(1);
    const cells = Object.fromEntries(HEADER.split(",").map((c, i) => [c, row?.[i]]));
    expect(cells).toMatchObject({
      url: "https://example.org/a,b",
      alias: "cols",
      domain: o.domain.name,
      domain_id: "",
      title: 'He said "hi",\r\nthen left',
      password: "",
      space_id: String(o.space.id),
      pixel_ids: String(o.pixel.id),
      tags: "sale;Fall 26",
      disabled: "1",
      privacy: "1",
      privacy_password: "",
      expiration_url: "https://example.org/later",
      expiration_date: future,
      expiration_time: "07:05",
      expiration_clicks: "9",
      // A cell starting with "=" is neutralised (the importer undoes it); the CSV quotes the rest.
      og_title: '\'=Card, "quoted"',
      og_description: "Two\nlines",
      og_image: "https://img.example/c.png",
      privacy_password_hash: "",
    });
    expect(cells.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(link.password).toBe(true);
  });

  it("reads pages by id (asc by default, desc on request) and resumes after a cursor", async () => {
    const o = await createOwner(api);
    // 2,345 links: three pages of the stream.
    await api.database.db.execute(
      sql`insert into links (workspace_id, domain_id, alias, url) select ${o.user.workspaceId}, ${o.domain.id}, 'bulk' || g, 'https://example.org/' || g from generate_series(1, 2345) g`,
    );
    const ids = (await api.database.db.select({ id: links.id }).from(links).where(eq(links.workspaceId, o.user.workspaceId)).orderBy(links.id)).map((r) => r.id);
    const asc = await exportCsv(o.user.apiKey);
    expect(asc.rows).toHaveLength(2346);
    expect(asc.rows.slice(1).map((r) => r[1])).toEqual(Array.from({ length: 2345 }, (_, i) => `bulk${i + 1}`));
    const desc = await exportCsv(o.user.apiKey, "?sort=desc");
    expect(desc.rows.slice(1).map((r) => r[1])).toEqual(
      asc.rows
        .slice(1)
        .map((r) => r[1])
        .reverse(),
    );
    const resumed = await exportCsv(o.user.apiKey, `?cursor=${ids[1999]}`);
    expect(resumed.rows.slice(1).map((r) => r[1])).toEqual(Array.from({ length: 345 }, (_, i) => `bulk${i + 2001}`));

    // tRPC pages concatenate to the same rows.
    const client = trpcClient(api.app, o.user.apiKey);
    const paged: string[][] = [];
    let cursor: number | undefined;
    for (let n = 0; n < 10; n++) {
      const page = await client.links.export.query({ limit: 1000, ...(cursor ? { cursor } : {}) });
      expect(page.columns.join(",")).toBe(HEADER);
      paged.push(...page.data.map((row) => page.columns.map((c) => row[c])));
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(paged).toEqual(asc.rows.slice(1));
  });

  it("bad filters are a 422 before anything is sent; no key is a 401; other methods 405", async () => {
    const o = await createOwner(api);
    for (const query of [
      "include=passwords",
      "include=secrets&include=secrets",
      "status=9",
      "sort=up",
      "search_by=domain",
      "space_id=abc",
      "domain_id=0",
      "pixel_id=-1",
      "cursor=0",
      "cursor=x",
      `search=${"x".repeat(256)}`,
    ]) {
      const res = await api.call(o.user, "GET", `/api/v1/links/export?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.code, query).toBe("validation_failed");
    }
    expect((await api.call(undefined, "GET", "/api/v1/links/export")).status).toBe(401);
    expect((await api.call(o.user, "POST", "/api/v1/links/export")).status).toBe(405);
    const client = trpcClient(api.app, o.user.apiKey);
    await expect(client.links.export.query({ limit: 1001 })).rejects.toMatchObject({ data: { code: "BAD_REQUEST" } });
  });
});

describe("password hashes in exports (include=secrets)", () => {
  /** Who asks, how, and what they get (CONTRACT §17): hashes only on request and to a key that could set them. */
  const CASES: Array<{ name: string; scopes: Scope[]; query: string; status: number; secrets?: "included" | "withheld" }> = [
    { name: "links:read, no request", scopes: ["links:read"], query: "", status: 200, secrets: "withheld" },
    { name: "links:read asks for secrets", scopes: ["links:read"], query: "?include=secrets", status: 403 },
    { name: "links:read + domains:read + stats:read asks for secrets", scopes: ["links:read", "domains:read", "stats:read"], query: "?include=secrets", status: 403 },
    { name: "links:read + links:write, no request", scopes: ["links:read", "links:write"], query: "", status: 200, secrets: "withheld" },
    { name: "links:read + links:write asks for secrets", scopes: ["links:read", "links:write"], query: "?include=secrets", status: 200, secrets: "included" },
    { name: "links:read + links:write, include empty", scopes: ["links:read", "links:write"], query: "?include=", status: 200, secrets: "withheld" },
    { name: "links:read + links:write, unknown include", scopes: ["links:read", "links:write"], query: "?include=passwords", status: 422 },
  ];

  it.each(CASES)("$name → $status", async ({ scopes, query, status, secrets }) => {
    const o = await createOwner(api);
    await api.call(o.user, "POST", "/api/v1/links", { url: "https://example.org/p", domain_id: String(o.domain.id), password: "pw", privacy: "2", privacy_password: "stats" });
    const key = await keyWith(o.user, scopes);
    const res = await exportCsv(key, query);
    expect(res.status, res.text).toBe(status);
    if (status === 403)
      expect(JSON.parse(res.text)).toEqual({ message: "Password hashes (include=secrets) are exported only to an API key with the links:write scope.", code: "forbidden", status: 403 });
    if (status !== 200) return;
    expect(res.headers["shortener-export-secrets"]).toBe(secrets);
    // The columns stay the import's (blank, not omitted): the file imports again, to links without passwords when withheld.
    expect(res.rows[0]?.join(",")).toBe(HEADER);
    const cells = Object.fromEntries(HEADER.split(",").map((c, i) => [c, res.rows[1]?.[i]]));
    if (secrets === "included") {
      expect(cells.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
      expect(cells.privacy_password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    } else {
      expect(cells).toMatchObject({ password_hash: "", privacy_password_hash: "" });
      expect(res.text).not.toContain("scrypt$");
    }

    // tRPC's pages: the same rule, FORBIDDEN for the 403.
    const client = trpcClient(api.app, key);
    const include = query === "?include=secrets" ? { include: "secrets" as const } : {};
    const page = await client.links.export.query(include);
    expect(page.secrets).toBe(secrets);
    expect(page.data[0]?.password_hash === "").toBe(secrets === "withheld");
  });

  it("tRPC: a links:read key asking for secrets is FORBIDDEN", async () => {
    const o = await createOwner(api);
    const client = trpcClient(api.app, await keyWith(o.user, ["links:read"]));
    await expect(client.links.export.query({ include: "secrets" })).rejects.toMatchObject({ data: { code: "FORBIDDEN" } });
  });
});

/**
 * Cells a spreadsheet would run (OWASP "CSV injection"), in the text columns a user sets: title, and
 * alias (which may start with `-`). Each comes out of the export with one leading apostrophe, and the
 * importer's reader gives the value back.
 */
const HOSTILE: Array<[name: string, field: "title" | "alias", value: string, cell: string]> = [
  ["HYPERLINK", "title", '=HYPERLINK("http://evil.example","click")', '\'=HYPERLINK("http://evil.example","click")'],
  ["DDE", "title", "=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
  ["plus", "title", "+1", "'+1"],
  ["minus sum", "title", "-1+1", "'-1+1"],
  ["at function", "title", "@SUM(A1)", "'@SUM(A1)"],
  ["tab then =", "title", "\t=1+1", "'\t=1+1"],
  ["CR then =", "title", "\r=1+1", "'\r=1+1"],
  ["apostrophe then =", "title", "'=1+1", "''=1+1"],
  ["apostrophe then text", "title", "'quoted", "'quoted"],
  ["alias starting with -", "alias", "-minus", "'-minus"],
  ["alias with - later", "alias", "a-b", "a-b"],
];

describe("formulas in exports", () => {
  it.each(HOSTILE)("%s: neutralised in the file, read back by the importer", async (_name, field, value, cell) => {
    const o = await createOwner(api);
    const alias = field === "alias" ? value : `h${Math.random().toString(36).slice(2, 10)}`;
    const created = await api.call(o.user, "POST", "/api/v1/links", { url: "https://example.org/h", domain_id: String(o.domain.id), alias, ...(field === "title" ? { title: value } : {}) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data[field]).toBe(value);
    const res = await exportCsv(o.user.apiKey);
    const col = HEADER.split(",").indexOf(field);
    expect(res.rows[1]?.[col]).toBe(cell);
    // No cell of the file starts a formula.
    for (const row of res.rows) for (const c of row) expect(c).not.toMatch(/^[=+\-@\t\r]/);
    const [fields] = await importedFields(res.text);
    expect(fields?.[field]).toBe(value);
  });

  it("tRPC pages carry the values themselves (JSON needs no neutralising)", async () => {
    const o = await createOwner(api);
    await api.call(o.user, "POST", "/api/v1/links", { url: "https://example.org/h", domain_id: String(o.domain.id), title: "=1+1", alias: "-x" });
    const page = await trpcClient(api.app, o.user.apiKey).links.export.query({});
    expect(page.data[0]).toMatchObject({ title: "=1+1", alias: "-x" });
  });
});

describe("a link's domain in link answers", () => {
  /** An unverified domain (CONTRACT §14: a user's claim) has a verification record with its token. */
  it("carries the verification record only for a key with domains:read: REST single, list, create, update, bulk; tRPC", async () => {
    const o = await createOwner(api);
    expect(o.domain.verification?.value).toMatch(/^shortener-verify=/);
    const link = (await api.call(o.user, "POST", "/api/v1/links", { url: "https://example.org/v", domain_id: String(o.domain.id) })).body.data;
    const KEYS: Array<[name: string, scopes: Scope[], isShown: boolean]> = [
      ["links only", ["links:read", "links:write"], false],
      ["links and domains:write", ["links:read", "links:write", "domains:write"], false],
      ["links and domains:read", ["links:read", "links:write", "domains:read"], true],
      ["the user key (every scope)", [], true],
    ];
    for (const [name, scopes, isShown] of KEYS) {
      const key = scopes.length ? await keyWith(o.user, scopes) : o.user.apiKey;
      const expected = isShown ? o.domain.verification : null;
      const answers: Array<[string, any]> = [
        ["GET /links/{id}", (await api.call(key, "GET", `/api/v1/links/${link.id}`)).body.data],
        ["GET /links", (await api.call(key, "GET", "/api/v1/links")).body.data[0]],
        ["POST /links", (await api.call(key, "POST", "/api/v1/links", { url: "https://example.org/w", domain_id: String(o.domain.id) })).body.data],
        ["PATCH /links/{id}", (await api.call(key, "PATCH", `/api/v1/links/${link.id}`, { title: name })).body.data],
        ["PATCH /links (bulk)", (await api.call(key, "PATCH", "/api/v1/links", { ids: String(link.id), title: name })).body.data[0]],
      ];
      const client = trpcClient(api.app, key);
      answers.push(["tRPC links.get", await client.links.get.query({ id: link.id })]);
      answers.push(["tRPC links.list", (await client.links.list.query({})).data[0]]);
      answers.push(["tRPC links.update", await client.links.update.mutate({ id: link.id, title: name })]);
      answers.push(["tRPC links.bulkUpdate", (await client.links.bulkUpdate.mutate({ ids: [link.id], title: name })).data[0]]);
      for (const [where, answer] of answers) {
        expect(answer?.domain, `${name}: ${where}`).toMatchObject({ id: o.domain.id, verified: false });
        expect(answer?.domain.verification, `${name}: ${where}`).toEqual(expected);
      }
    }
    // A webhook's receiver holds no key: link.* payloads carry the record withheld.
    const stored = await getLink({ ctx: o.user.ctx, id: link.id });
    expect(createEventData({ shortUrlScheme: undefined }).link(stored)).toMatchObject({ id: link.id, domain: { id: o.domain.id, verified: false, verification: null } });
    // The domain itself still shows it to a key with domains:read.
    expect((await api.call(o.user, "GET", `/api/v1/domains/${o.domain.id}`)).body.data.verification).toEqual(o.domain.verification);
  });
});

describe("statistics as CSV", () => {
  it("format=csv or Accept: text/csv → the JSON's rows (clicks with unique and bots), formulas neutralised", async () => {
    const o = await createOwner(api);
    const link = (await api.call(o.user, "POST", "/api/v1/links", { url: "https://example.org/s", domain_id: String(o.domain.id) })).body.data;
    const at = new Date();
    const click = (referrer: string | null, visitor: string) => ({
      linkId: link.id,
      at,
      country: "DE",
      platform: null,
      browser: null,
      device: null,
      language: null,
      referrer,
      counted: false,
      rotation: null,
      visitors: [visitor],
    });
    // Three visitors: the first comes twice.
    await recordClicks(api.database.db, [
      click("=cmd|' /C calc'!A0", "00000000000000a1"),
      click("=cmd|' /C calc'!A0", "00000000000000a1"),
      click("news.example", "00000000000000a2"),
      click(null, "00000000000000a3"),
    ]);

    const json = await api.call(o.user, "GET", `/api/v1/stats/${link.id}?name=referrer`);
    const csv = await api.app.inject({ method: "GET", url: `/api/v1/stats/${link.id}?name=referrer&format=csv`, headers: { authorization: `Bearer ${o.user.apiKey}` } });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(csv.headers["content-disposition"]).toMatch(new RegExp(`^attachment; filename="stats-${link.id}-referrer-\\d{4}-\\d{2}-\\d{2}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    const expected = json.body.data.map((r: { value: string; count: number }) => `${r.value.startsWith("=") ? `'${r.value}` : r.value},${r.count}\r\n`).join("");
    expect(csv.body).toBe(`value,count\r\n${expected}`);
    expect(csv.body.split("\r\n")[1]).toBe("'=cmd|' /C calc'!A0,2");
    expect(json.body.data).toHaveLength(3);

    const accepted = await api.app.inject({ method: "GET", url: `/api/v1/stats/${link.id}?name=clicks`, headers: { authorization: `Bearer ${o.user.apiKey}`, accept: "text/csv" } });
    expect(accepted.headers["content-type"]).toBe("text/csv; charset=utf-8");
    const lines = accepted.body.trimEnd().split("\r\n");
    expect(lines[0]).toBe("value,count,unique,bots");
    expect(lines).toHaveLength(31);
    expect(lines.at(-1)).toBe(`${at.toISOString().slice(0, 10)},4,3,0`);
    // format=json wins over the Accept header.
    const forced = await api.app.inject({ method: "GET", url: `/api/v1/stats/${link.id}?name=clicks&format=json`, headers: { authorization: `Bearer ${o.user.apiKey}`, accept: "text/csv" } });
    expect(forced.statusCode).toBe(200);
    expect(forced.headers["content-type"]).toMatch(/^application\/json/);
    expect(forced.json().data).toHaveLength(30);
  });

  it("a bad format is a 422; another user's link is a 404 as CSV too", async () => {
    const o = await createOwner(api);
    const link = (await api.call(o.user, "POST", "/api/v1/links", { url: "https://example.org/s", domain_id: String(o.domain.id) })).body.data;
    const bad = await api.call(o.user, "GET", `/api/v1/stats/${link.id}?format=xml`);
    expect(bad.status).toBe(422);
    expect(bad.body.message).toEqual({ format: ["The format must be one of json, csv."] });
    const stranger = await api.user();
    const foreign = await api.call(stranger, "GET", `/api/v1/stats/${link.id}?name=clicks&format=csv`);
    expect(foreign.status, JSON.stringify(foreign.body)).toBe(404);
  });
});

import { eq, sql } from "drizzle-orm";
import { recordClicks } from "@shortener/core";
import { links } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  "url,alias,domain,domain_id,title,password,space_id,pixel_ids,disabled,privacy,privacy_password,expiration_url,expiration_date,expiration_time,expiration_clicks,password_hash,privacy_password_hash";

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
        disabled: "1",
        privacy: "1",
        expiration_url: "https://example.org/later",
        expiration_date: future,
        expiration_time: "07:05",
        expiration_clicks: "9",
      })
    ).body.data;
    const { rows, headers } = await exportCsv(o.user.apiKey);
    expect(headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(headers["cache-control"]).toBe("private, no-store");
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
      disabled: "1",
      privacy: "1",
      privacy_password: "",
      expiration_url: "https://example.org/later",
      expiration_date: future,
      expiration_time: "07:05",
      expiration_clicks: "9",
      privacy_password_hash: "",
    });
    expect(cells.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(link.password).toBe(true);
  });

  it("reads pages by id (asc by default, desc on request) and resumes after a cursor", async () => {
    const o = await createOwner(api);
    // 2,345 links: three pages of the stream.
    await api.database.db.execute(
      sql`insert into links (user_id, domain_id, alias, url) select ${o.user.id}, ${o.domain.id}, 'bulk' || g, 'https://example.org/' || g from generate_series(1, 2345) g`,
    );
    const ids = (await api.database.db.select({ id: links.id }).from(links).where(eq(links.userId, o.user.id)).orderBy(links.id)).map((r) => r.id);
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
    for (const query of ["status=9", "sort=up", "search_by=domain", "space_id=abc", "domain_id=0", "pixel_id=-1", "cursor=0", "cursor=x", `search=${"x".repeat(256)}`]) {
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

describe("statistics as CSV", () => {
  it("format=csv or Accept: text/csv → value,count with the JSON's rows, formulas neutralised", async () => {
    const o = await createOwner(api);
    const link = (await api.call(o.user, "POST", "/api/v1/links", { url: "https://example.org/s", domain_id: String(o.domain.id) })).body.data;
    const at = new Date();
    const click = (referrer: string | null) => ({ linkId: link.id, at, country: "DE", platform: null, browser: null, device: null, language: null, referrer, counted: false, rotation: null });
    await recordClicks(api.database.db, [click("=cmd|' /C calc'!A0"), click("=cmd|' /C calc'!A0"), click("news.example"), click(null)]);

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
    expect(lines[0]).toBe("value,count");
    expect(lines).toHaveLength(31);
    expect(lines.at(-1)).toBe(`${at.toISOString().slice(0, 10)},4`);
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

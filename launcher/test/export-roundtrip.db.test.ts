import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers.ts";

/**
 * CONTRACT §17 exports, end to end on the real server (API, import worker, visitor side), on both
 * drivers: an exported set imports again to the same links, and one user's backup restores into an
 * empty database. docs/adr/0026-link-exports.md says what a row carries and what it cannot.
 */
const ADMIN_KEY = `shk_${"E".repeat(40)}`;
const future = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

type Server = TestServer;

function start(): Promise<Server> {
  // Domains serve as soon as they are made: this test is about exports; ownership (§14) has its own tests.
  return startTestServer({ ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: "100000", DOMAIN_VERIFICATION: "off" });
}

let a: Server;
beforeAll(async () => {
  a = await start();
}, 60_000);
afterAll(async () => {
  await a?.close();
});

async function call(s: Server, key: string, method: string, path: string, form?: Record<string, string | string[]>): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  let body: string | undefined;
  if (form) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
    body = params.toString();
  }
  const res = await fetch(`${s.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  const isJson = res.headers.get("content-type")?.startsWith("application/json");
  return { status: res.status, body: isJson ? JSON.parse(text) : text, text, headers: res.headers };
}

async function data(s: Server, key: string, method: string, path: string, form?: Record<string, string | string[]>): Promise<any> {
  const res = await call(s, key, method, path, form);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body.data;
}

async function importCsv(s: Server, key: string, csv: string): Promise<any> {
  const res = await fetch(`${s.base}/api/v1/imports`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" }, body: csv });
  const job = ((await res.json()) as { data: { id: number } }).data;
  expect(res.status).toBe(202);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const current = await data(s, key, "GET", `/api/v1/imports/${job.id}`);
    if (current.status === "completed" || current.status === "failed") return current;
    if (Date.now() > deadline) throw new Error(`import ${job.id} still ${current.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every link of a user, in id order, through the list. */
async function allLinks(s: Server, key: string, query = ""): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const res = await call(s, key, "GET", `/api/v1/links?per_page=100&sort=asc&page=${page}${query}`);
    out.push(...res.body.data);
    if (!res.body.links.next) return out;
  }
}

/** What §12 carries of a link, by name: the fields an export must bring back. */
function carried(link: any, ids: { space?: Map<number, number>; pixel?: Map<number, number> } = {}) {
  return {
    url: link.url,
    alias: link.alias,
    domain: link.domain.name,
    title: link.title,
    password: link.password,
    space: link.space ? (ids.space?.get(link.space.id) ?? link.space.id) : null,
    pixels: link.pixels.map((p: any) => ids.pixel?.get(p.id) ?? p.id),
    disabled: link.disabled,
    privacy: link.privacy,
    privacy_password: link.privacy_password,
    expiration_url: link.expiration_url,
    expiration_clicks: link.expiration_clicks,
    ends_at: link.ends_at,
  };
}

/** A visit that answers a link's password form, on the domain's host: 302 when the password opens it. */
function postPassword(s: Server, host: string, alias: string, password: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = new URLSearchParams({ password }).toString();
    const req = request(
      {
        host: "127.0.0.1",
        port: s.port,
        path: `/${alias}`,
        method: "POST",
        headers: { host, "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body), "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A user with a domain (its host visits can name), two spaces and three pixels. */
async function makeOwner(s: Server, adminKey: string, email: string, host: string) {
  const user = await data(s, adminKey, "POST", "/api/v1/users", { email, name: "Exporter" });
  const key = user.api_key as string;
  const domain = await data(s, key, "POST", "/api/v1/domains", { name: host });
  const spaces = [await data(s, key, "POST", "/api/v1/spaces", { name: "Team", color: "3" }), await data(s, key, "POST", "/api/v1/spaces", { name: "Other" })];
  const pixels = [
    await data(s, key, "POST", "/api/v1/pixels", { name: "fb", type: "facebook", value: "111" }),
    await data(s, key, "POST", "/api/v1/pixels", { name: "ga", type: "google-analytics", value: "G-222" }),
    await data(s, key, "POST", "/api/v1/pixels", { name: "x", type: "x", value: "333" }),
  ];
  return { key, domain, spaces, pixels };
}

/** Links with every §12 field set in some way, hostile text included. */
async function makeLinks(s: Server, key: string, domainId: number, spaceId: number, pixelIds: number[], tag: string) {
  const forms: Array<Record<string, string | string[]>> = [
    { url: "https://example.org/plain" },
    { url: "https://example.org/a?b=1&c=2#frag", alias: `${tag}-alias_1`, title: `Comma, "quote"\nnew line ☃ ${tag}` },
    { url: "https://example.org/pw", title: `=HYPERLINK("x") ${tag}`, password: "s3cret pass", space_id: String(spaceId) },
    { url: "https://example.org/priv", privacy: "2", privacy_password: "stats pw", pixel_ids: pixelIds.map(String), disabled: "1" },
    { url: "https://example.org/exp", expiration_date: future, expiration_time: "13:45", expiration_url: "https://example.org/gone", expiration_clicks: "42", privacy: "1" },
    {
      url: "https://example.org/all",
      alias: `-${tag}`,
      title: tag,
      password: "x",
      privacy: "2",
      privacy_password: "y",
      space_id: String(spaceId),
      pixel_ids: [String(pixelIds[0])],
      expiration_date: future,
    },
  ];
  const out: any[] = [];
  for (const form of forms) out.push(await data(s, key, "POST", "/api/v1/links", { domain_id: String(domainId), ...form }));
  return out;
}

describe("export → delete → import", () => {
  it("a filtered export imports again to the same links, passwords included", async () => {
    const tag = `rt${Date.now().toString(36)}`;
    const owner = await makeOwner(a, ADMIN_KEY, `${tag}@example.test`, `${tag}.example`);
    const [team, other] = owner.spaces as [any, any];
    const inSet = await makeLinks(
      a,
      owner.key,
      owner.domain.id,
      team.id,
      owner.pixels.map((p: any) => p.id),
      tag,
    );
    // Outside the filter (another domain): must be neither exported nor touched.
    const otherDomain = await data(a, owner.key, "POST", "/api/v1/domains", { name: `${tag}-b.example` });
    const outside = await makeLinks(a, owner.key, otherDomain.id, other.id, [owner.pixels[2].id], `${tag}o`);

    const before = await allLinks(a, owner.key, `&domain_id=${owner.domain.id}`);
    expect(before.map((l) => l.id)).toEqual(inSet.map((l) => l.id));

    const exported = await call(a, owner.key, "GET", `/api/v1/links/export?domain_id=${owner.domain.id}&include=secrets`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(exported.headers.get("content-disposition")).toMatch(/^attachment; filename="links-\d{4}-\d{2}-\d{2}\.csv"$/);
    const csv = exported.text;
    expect(csv.split("\r\n")[0]).toBe(
      "url,alias,domain,domain_id,title,password,space_id,pixel_ids,tags,disabled,privacy,privacy_password,expiration_url,expiration_date,expiration_time,expiration_clicks,og_title,og_description,og_image,password_hash,privacy_password_hash,health,health_reason,health_checked_at",
    );
    // No clear password anywhere: only scrypt hashes.
    expect(csv).not.toContain("s3cret pass");
    expect(csv).not.toContain("stats pw");
    expect(csv.match(/scrypt\$16384\$8\$1\$/g)).toHaveLength(4);
    for (const link of outside) expect(csv).not.toContain(`https://example.org/${link.url.split("/").pop()},${link.alias}`);

    for (const link of inSet) expect((await call(a, owner.key, "DELETE", `/api/v1/links/${link.id}`)).status).toBe(200);
    expect(await allLinks(a, owner.key, `&domain_id=${owner.domain.id}`)).toEqual([]);

    const job = await importCsv(a, owner.key, csv);
    expect(job).toMatchObject({ status: "completed", total_rows: inSet.length, created_rows: inSet.length, failed_rows: 0, errors: [] });

    const after = await allLinks(a, owner.key, `&domain_id=${owner.domain.id}`);
    // Random aliases came back too: the same set by alias.
    const byAlias = (links: any[]) => links.map((l) => carried(l)).sort((x, y) => x.alias.localeCompare(y.alias));
    expect(byAlias(after)).toEqual(byAlias(before));
    console.log(
      `export round trip: ${inSet.length} links exported (${Buffer.byteLength(csv)} bytes), deleted, imported again: ` + `${after.length} links equal in ${Object.keys(carried(before[0])).join(", ")}`,
    );
    // The same passwords open them: the hashes came back, not just "a password is set".
    const pw = after.find((l) => l.url === "https://example.org/pw");
    expect(await postPassword(a, `${tag}.example`, pw.alias, "wrong")).toBe(401);
    expect(await postPassword(a, `${tag}.example`, pw.alias, "s3cret pass")).toBe(302);
    // The links outside the filter are untouched.
    expect((await allLinks(a, owner.key, `&domain_id=${otherDomain.id}`)).map((l) => l.id)).toEqual(outside.map((l) => l.id));
  }, 120_000);
});

/** Text a spreadsheet would run as a formula (OWASP "CSV injection"), and values that look like its escaping. */
const HOSTILE_TITLES = [
  '=HYPERLINK("http://evil.example","click")',
  "=cmd|' /C calc'!A0",
  "+1",
  "-1+1",
  "@SUM(A1)",
  "\t=1+1",
  "\r=1+1",
  "'=1+1",
  "''+2",
  "'plain apostrophe",
  'a=b, "quoted"\r\nnext line',
];

describe("hostile cells: export → import → export", () => {
  it("every cell is neutralised in the file, and the file imports back to the same links and the same export", async () => {
    const tag = `hx${Date.now().toString(36)}`;
    const owner = await makeOwner(a, ADMIN_KEY, `${tag}@example.test`, `${tag}.example`);
    for (const [i, title] of HOSTILE_TITLES.entries()) {
      await data(a, owner.key, "POST", "/api/v1/links", { domain_id: String(owner.domain.id), url: `https://example.org/h${i}`, title, alias: `-${tag}${i}`, password: `pw${i}` });
    }
    const first = await call(a, owner.key, "GET", "/api/v1/links/export?include=secrets");
    expect(first.status).toBe(200);
    const records = splitCsvRecords(first.text).slice(1);
    expect(records).toHaveLength(HOSTILE_TITLES.length);
    for (const record of records) for (const cell of splitCsvLine(record)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    const before = await allLinks(a, owner.key);

    for (const link of before) expect((await call(a, owner.key, "DELETE", `/api/v1/links/${link.id}`)).status).toBe(200);
    const job = await importCsv(a, owner.key, first.text);
    expect(job).toMatchObject({ status: "completed", created_rows: HOSTILE_TITLES.length, failed_rows: 0, errors: [] });

    const after = await allLinks(a, owner.key);
    expect(after.map((l) => l.title)).toEqual(HOSTILE_TITLES);
    expect(after.map((l) => carried(l))).toEqual(before.map((l) => carried(l)));
    const second = await call(a, owner.key, "GET", "/api/v1/links/export?include=secrets");
    expect(second.text).toBe(first.text);
  }, 120_000);
});

describe("a backup of one user restored into an empty database", () => {
  it("domains, spaces and pixels recreated by name, links imported from the export, ids mapped", async () => {
    const tag = `bk${Date.now().toString(36)}`;
    const owner = await makeOwner(a, ADMIN_KEY, `${tag}@example.test`, `${tag}.example`);
    await makeLinks(
      a,
      owner.key,
      owner.domain.id,
      owner.spaces[0].id,
      owner.pixels.map((p: any) => p.id),
      tag,
    );
    const second = await data(a, owner.key, "POST", "/api/v1/domains", { name: `${tag}-2.example` });
    await makeLinks(a, owner.key, second.id, owner.spaces[1].id, [owner.pixels[1].id], `${tag}s`);

    // The backup: the user's domains, spaces and pixels (JSON lists) and the links export (CSV).
    const backup = {
      domains: await data(a, owner.key, "GET", "/api/v1/domains?per_page=100"),
      spaces: await data(a, owner.key, "GET", "/api/v1/spaces?per_page=100"),
      pixels: await data(a, owner.key, "GET", "/api/v1/pixels?per_page=100"),
      links: (await call(a, owner.key, "GET", "/api/v1/links/export?include=secrets")).text,
    };
    const original = await allLinks(a, owner.key);
    expect(original).toHaveLength(12);

    const b = await start();
    try {
      const restored = await data(b, ADMIN_KEY, "POST", "/api/v1/users", { email: `${tag}@example.test`, name: "Exporter" });
      const key = restored.api_key as string;
      for (const d of backup.domains) await data(b, key, "POST", "/api/v1/domains", { name: d.name });
      const space = new Map<number, number>();
      for (const s of [...backup.spaces].reverse()) space.set(s.id, (await data(b, key, "POST", "/api/v1/spaces", { name: s.name, color: String(s.color) })).id);
      const pixel = new Map<number, number>();
      for (const p of [...backup.pixels].reverse()) pixel.set(p.id, (await data(b, key, "POST", "/api/v1/pixels", { name: p.name, type: p.type, value: p.value })).id);
      // The new database gave them other ids: rewrite the two id columns (domains go by name).
      const records = splitCsvRecords(backup.links);
      const header = (records[0] as string).split(",");
      const spaceCol = header.indexOf("space_id");
      const pixelCol = header.indexOf("pixel_ids");
      const rewrite = (line: string) => {
        const cells = splitCsvLine(line);
        if (cells[spaceCol]) cells[spaceCol] = String(space.get(Number(cells[spaceCol])));
        if (cells[pixelCol])
          cells[pixelCol] = (cells[pixelCol] as string)
            .split(";")
            .map((id) => String(pixel.get(Number(id))))
            .join(";");
        return cells.map((c) => (/[",\r\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(",");
      };
      const restoredCsv = [records[0], ...records.slice(1).map(rewrite)].join("\r\n") + "\r\n";

      const job = await importCsv(b, key, restoredCsv);
      expect(job).toMatchObject({ status: "completed", created_rows: 12, failed_rows: 0 });
      const now = await allLinks(b, key);
      const byAlias = (links: any[], ids?: Parameters<typeof carried>[1]) => links.map((l) => carried(l, ids)).sort((x, y) => x.alias.localeCompare(y.alias));
      expect(byAlias(now)).toEqual(byAlias(original, { space, pixel }));
      const pw = now.find((l) => l.url === "https://example.org/pw" && l.domain.name === `${tag}.example`);
      expect(await postPassword(b, `${tag}.example`, pw.alias, "s3cret pass")).toBe(302);
      console.log(`backup restored into an empty database: ${now.length} links, ${backup.domains.length} domains, ${space.size} spaces, ${pixel.size} pixels`);
    } finally {
      await b.close();
    }
  }, 180_000);
});

/** CSV records of a whole file (quoted line breaks stay inside their record), without the final empty one. */
function splitCsvRecords(text: string): string[] {
  const out: string[] = [];
  let current = "";
  let isQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '"') isQuoted = !isQuoted;
    if (!isQuoted && ch === "\r" && text[i + 1] === "\n") {
      out.push(current);
      current = "";
      i++;
      continue;
    }
    current += ch;
  }
  if (current) out.push(current);
  return out;
}

function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let current = "";
  let isQuoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (ch === '"') {
      if (isQuoted && line[i + 1] === '"') {
        current += '"';
        i++;
      } else isQuoted = !isQuoted;
    } else if (ch === "," && !isQuoted) {
      cells.push(current);
      current = "";
    } else current += ch;
  }
  cells.push(current);
  return cells;
}

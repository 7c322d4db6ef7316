import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importErrors } from "@shortener/db";
import { claimImport, completeImport, runImport, streamImportSource, type ImportRow } from "@shortener/core";
import { IMPORT_FORMATS } from "@shortener/core";
import { exportFile } from "@shortener/core/testing";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

let api: TestApi;
const queued: number[] = [];

beforeAll(async () => {
  api = await createTestApi({ importMaxBytes: 4096, importMaxRows: 20 }, { enqueueImport: async (id) => void queued.push(id) });
});
afterAll(async () => {
  await api?.close();
});

type Key = { apiKey: string };

async function upload(user: Key, body: string | Buffer, options: { type?: string; key?: string; query?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${user.apiKey}`, "content-type": options.type ?? "text/csv" };
  if (options.key) headers["idempotency-key"] = options.key;
  const res = await api.app.inject({ method: "POST", url: `/api/v1/imports${options.query ?? ""}`, headers, payload: body });
  return { status: res.statusCode, body: res.headers["content-type"]?.toString().startsWith("application/json") ? res.json() : res.body, headers: res.headers };
}

function multipart(fields: Record<string, string>, file?: { name: string; content: string | Buffer; field?: string }) {
  const boundary = "----shortener-test-boundary";
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? "file"}"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n`));
    parts.push(Buffer.from(file.content));
    parts.push(Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

const CSV = "url,alias\nhttps://imp.example/1,i1\nhttps://imp.example/2,\n";

describe("POST /api/v1/imports", () => {
  it("queues a text/csv upload: 202 with the job, counted rows, the default domain from the query", async () => {
    const { user, domain } = await createOwner(api);
    const res = await upload(user, CSV, { query: `?domain_id=${domain.id}` });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      data: {
        id: expect.any(Number),
        status: "queued",
        domain_id: domain.id,
        format: "csv",
        total_rows: 2,
        processed_rows: 0,
        created_rows: 0,
        skipped_rows: 0,
        failed_rows: 0,
        failure_reason: null,
        errors: [],
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        started_at: null,
        finished_at: null,
      },
      status: 202,
    });
    expect(queued).toContain(res.body.data.id);
    let stored = "";
    for await (const part of streamImportSource({ db: api.database.db, now: () => new Date() }, res.body.data.id)) stored += part;
    expect(stored).toBe(CSV);
  });

  it("takes a multipart upload with the file and the default domain as fields", async () => {
    const { user, domain } = await createOwner(api);
    const form = multipart({ domain_id: String(domain.id) }, { name: "links.csv", content: "\ufeffurl\r\nhttps://m.example/1\r\n" });
    const res = await upload(user, form.body, { type: form.type });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ status: "queued", domain_id: domain.id, total_rows: 1 });
    const missing = multipart({ domain_id: String(domain.id) }, { name: "links.csv", content: "url\n", field: "other" });
    expect((await upload(user, missing.body, { type: missing.type })).body).toEqual({ message: { file: ["The file field is required."] }, code: "validation_failed", status: 422 });
  });

  it("answers the same Idempotency-Key with 200 and the same job, queueing nothing new", async () => {
    const { user, domain } = await createOwner(api);
    const first = await upload(user, CSV, { key: "import-7", query: `?domain_id=${domain.id}` });
    const before = queued.length;
    const second = await upload(user, CSV, { key: "import-7", query: `?domain_id=${domain.id}` });
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    expect(queued.length).toBe(before);
    const list = await api.call(user, "GET", "/api/v1/imports");
    expect(list.body.meta.total).toBe(1);
    // Another user's key of the same name is theirs.
    const other = await createOwner(api);
    expect((await upload(other.user, CSV, { key: "import-7", query: `?domain_id=${other.domain.id}` })).status).toBe(202);
  });

  it("refuses what it cannot import: sizes, rows, columns, types, domains", async () => {
    const { user, domain } = await createOwner(api);
    const other = await createOwner(api);
    const big = `url\n${"https://big.example/x\n".repeat(300)}`;
    expect(await upload(user, big)).toMatchObject({ status: 413, body: { message: "The file is larger than 4 KiB.", code: "payload_too_large", status: 413 } });
    const bigForm = multipart({}, { name: "big.csv", content: big });
    expect((await upload(user, bigForm.body, { type: bigForm.type })).body.code).toBe("payload_too_large");
    const many = `url\n${"https://m.example/\n".repeat(21)}`;
    expect((await upload(user, many)).body).toEqual({ message: { file: ["The file has more than 20 rows."] }, code: "validation_failed", status: 422 });
    expect((await upload(user, "link,alias\nx,y\n")).body.message).toEqual({ file: ["The file has no url column."] });
    expect((await upload(user, "")).body.message).toEqual({ file: ["The file is empty."] });
    expect((await upload(user, "url\n\n")).body.message).toEqual({ file: ["The file has no rows after its header."] });
    expect((await upload(user, CSV, { query: `?domain_id=${other.domain.id}` })).body.message).toEqual({ domain_id: ["The selected domain id is invalid."] });
    expect((await upload(user, '{"url":"x"}', { type: "application/json" })).body).toMatchObject({ status: 415, code: "unsupported_media_type" });
    expect((await upload(user, "url=x", { type: "application/x-www-form-urlencoded" })).status).toBe(415);
    expect((await upload(user, "url\nx\n", { type: "text/plain" })).status).toBe(415);
    // text/csv is understood by /imports only: other routes keep their 415.
    const link = await api.app.inject({
      method: "POST",
      url: "/api/v1/links",
      headers: { authorization: `Bearer ${user.apiKey}`, "content-type": "text/csv" },
      payload: `url,domain_id\nhttps://x.example,${domain.id}\n`,
    });
    expect(link.statusCode).toBe(415);
    expect((await api.call(user, "DELETE", "/api/v1/imports")).status).toBe(405);
    expect((await api.call(undefined, "GET", "/api/v1/imports")).status).toBe(401);
  });

  // Found by the fuzz test: the multipart parser's own errors were 500s.
  it.each([
    ["no boundary in the content type", "multipart/form-data", "abc"],
    ["a body that is no multipart at all", "multipart/form-data; boundary=x", "L\\8"],
    [
      "a file part cut off before its closing boundary",
      "multipart/form-data; boundary=x",
      '--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nurl\r\nhttps://cut.example/\r\n',
    ],
    ["a part header that never ends", "multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="file"'],
  ])("a malformed multipart body (%s) is a 400, and queues nothing", async (_name, type, payload) => {
    const { user } = await createOwner(api);
    const res = await upload(user, payload, { type });
    expect(res).toMatchObject({ status: 400, body: { code: "bad_request", status: 400, message: expect.stringContaining("multipart") } });
    expect((await api.call(user, "GET", "/api/v1/imports")).body.meta.total).toBe(0);
  });
});

/** Runs a job's rows through core, as a worker would (the worker itself is apps/worker's). */
async function runRows(jobId: number, rows: ImportRow[]) {
  const sys = { db: api.database.db, now: () => new Date() };
  const claimed = await claimImport(sys, jobId);
  if (!claimed) throw new Error("not claimed");
  await runImport({
    ctx: sys,
    job: claimed,
    rows: (async function* () {
      yield* rows;
    })(),
  });
  await completeImport(sys, jobId);
}

describe("POST /api/v1/imports?format= (CONTRACT §23)", () => {
  const EXPORTS = IMPORT_FORMATS.filter((f) => f !== "csv");

  it.each(EXPORTS)("queues a %s export given as a query parameter or a multipart field, the format stored on the job", async (format) => {
    const { user, domain } = await createOwner(api);
    const file = exportFile(format, domain.name);
    const viaQuery = await upload(user, file, { query: `?format=${format}&domain_id=${domain.id}` });
    expect(viaQuery.status).toBe(202);
    expect(viaQuery.body.data).toMatchObject({ status: "queued", format, domain_id: domain.id, total_rows: 8 });
    const form = multipart({ format, domain_id: String(domain.id) }, { name: `${format}.csv`, content: file });
    const viaForm = await upload(user, form.body, { type: form.type });
    expect(viaForm.status).toBe(202);
    expect(viaForm.body.data).toMatchObject({ format, total_rows: 8 });
    expect((await api.app.inject({ method: "GET", url: `/api/v1/imports/${viaForm.body.data.id}`, headers: { authorization: `Bearer ${user.apiKey}` } })).json().data.format).toBe(format);
  });

  it.each(EXPORTS.flatMap((sent) => EXPORTS.filter((file) => file !== sent).map((file) => [file, sent] as const)))(
    "refuses a %s export sent as format=%s: 422 on file naming the missing columns, nothing queued",
    async (fileFormat, sent) => {
      const { user, domain } = await createOwner(api);
      const before = queued.length;
      const res = await upload(user, exportFile(fileFormat, domain.name), { query: `?format=${sent}&domain_id=${domain.id}` });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("validation_failed");
      expect(Object.keys(res.body.message)).toEqual(["file"]);
      expect(res.body.message.file[0]).toMatch(new RegExp(`^The file is not an? .+ export \\(format=${sent}\\): its header has no .+ columns?\\.$`));
      expect(queued.length).toBe(before);
      const list = await api.app.inject({ method: "GET", url: "/api/v1/imports", headers: { authorization: `Bearer ${user.apiKey}` } });
      expect(list.json().data).toEqual([]);
    },
  );

  it.each([
    ["a Bitly file as format=dub", "bitly", "?format=dub", "The file is not a Dub export (format=dub): its header has no url column."],
    ["a YOURLS file as format=kutt", "yourls", "?format=kutt", "The file is not a Kutt export (format=kutt): its header has no address, target columns."],
    ["a Dub file as format=shlink", "dub", "?format=shlink", "The file is not a Shlink export (format=shlink): its header has no longUrl, shortCode or shortUrl columns."],
  ] as const)("names the missing columns exactly: %s", async (_name, fileFormat, query, message) => {
    const { user, domain } = await createOwner(api);
    const res = await upload(user, exportFile(fileFormat, domain.name), { query });
    expect(res.body).toEqual({ message: { file: [message] }, code: "validation_failed", status: 422 });
  });

  it.each([
    ["an unknown format", "?format=excel"],
    ["a format in another case", "?format=Bitly"],
    ["two formats", "?format=bitly&format=dub"],
  ])("refuses %s: 422 on format listing the formats, nothing queued", async (_name, query) => {
    const { user } = await createOwner(api);
    const before = queued.length;
    const res = await upload(user, "url\nhttps://f.example/1\n", { query });
    expect(res.body).toEqual({ message: { format: [`The format must be one of ${IMPORT_FORMATS.join(", ")}.`] }, code: "validation_failed", status: 422 });
    expect(queued.length).toBe(before);
  });

  it("refuses a format with a NUL as every query value with one is refused (§15), naming the field", async () => {
    const { user } = await createOwner(api);
    const res = await upload(user, "url\nhttps://f.example/1\n", { query: "?format=bitly%00" });
    expect(res.body).toEqual({ message: { format: ["The format field must not contain a NUL character (U+0000)."] }, code: "validation_failed", status: 422 });
  });

  it("refuses an empty export and an export with a header only, as a CSV would be", async () => {
    const { user } = await createOwner(api);
    expect((await upload(user, "", { query: "?format=shlink" })).body.message).toEqual({ file: ["The file is empty."] });
    expect((await upload(user, "shortCode,longUrl\n", { query: "?format=shlink" })).body.message).toEqual({ file: ["The file has no rows after its header."] });
  });
});

describe("GET /api/v1/imports", () => {
  it("shows a job with its counters and row errors to its owner only", async () => {
    const { user, domain } = await createOwner(api);
    const created = (await upload(user, CSV, { query: `?domain_id=${domain.id}` })).body.data;
    await runRows(created.id, [
      { line: 2, fields: { url: "https://imp.example/1", alias: "i1" } },
      { line: 3, fields: { url: "javascript:alert(1)" } },
    ]);
    const res = await api.call(user, "GET", `/api/v1/imports/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: created.id,
      status: "completed",
      total_rows: 2,
      processed_rows: 2,
      created_rows: 1,
      skipped_rows: 0,
      failed_rows: 1,
      errors: [{ line: 3, field: "url", message: "The url must start with http:// or https://." }],
      started_at: expect.any(String),
      finished_at: expect.any(String),
    });
    const list = await api.call(user, "GET", "/api/v1/imports?per_page=10");
    expect(list.body.data.map((j: { id: number }) => j.id)).toEqual([created.id]);
    expect(list.body.data[0].errors).toBeUndefined();
    expect(list.body.meta).toMatchObject({ current_page: 1, per_page: 10, total: 1 });

    const other = await createOwner(api);
    expect(await api.call(other.user, "GET", `/api/v1/imports/${created.id}`)).toMatchObject({ status: 404, body: { message: "Resource not found.", code: "not_found", status: 404 } });
    expect((await api.call(other.user, "GET", `/api/v1/imports/${created.id}/errors`)).status).toBe(404);
    expect((await api.call(other.user, "GET", "/api/v1/imports")).body.data).toEqual([]);
    expect((await api.call(user, "GET", "/api/v1/imports/999999999")).status).toBe(404);
  });

  it("gives every row error as CSV, with formula characters neutralised", async () => {
    const { user, domain } = await createOwner(api);
    const created = (await upload(user, CSV, { query: `?domain_id=${domain.id}` })).body.data;
    await runRows(created.id, [{ line: 2, fields: { url: "nope" } }]);
    await api.database.db.insert(importErrors).values([
      { jobId: created.id, line: 5, field: "title", message: '=HYPERLINK("http://evil.example","x")' },
      { jobId: created.id, line: 6, field: "@field", message: '+1, -2 and a "quote"' },
      { jobId: created.id, line: 7, field: null, message: "\tTab" },
    ]);
    const res = await api.app.inject({ method: "GET", url: `/api/v1/imports/${created.id}/errors`, headers: { authorization: `Bearer ${user.apiKey}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="import-${created.id}-errors.csv"`);
    expect(res.headers["cache-control"]).toBe("private, no-store");
    expect(res.body).toBe(
      ["line,field,message", "2,url,The url must be a valid URL.", `5,title,"'=HYPERLINK(""http://evil.example"",""x"")"`, `6,'@field,"'+1, -2 and a ""quote"""`, "7,,'\tTab", ""].join("\r\n"),
    );
  });
});

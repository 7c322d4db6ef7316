import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";
import type { FastifyInstance, InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi, DEFAULT_API_CONFIG, getOpenApiDocument, registeredRoutes, scopeOfRoutes } from "../src/index.ts";
import { startTestDns, testClick, type TestDns } from "@shortener/core/testing";
import { API_KEY_SCOPES, recordClicks } from "@shortener/core";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

// ajv-formats is CommonJS: NodeNext types its default import as the module object, vitest hands over the function.
type AddFormats = typeof addFormatsModule.default;
const addFormats: AddFormats = (addFormatsModule as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

type Json = Record<string, any>; // a parsed OpenAPI document

let api: TestApi;
let dns: TestDns;
let doc: Json;
const DOC_ID = "https://shortener.test/openapi.json";
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

beforeAll(async () => {
  dns = await startTestDns();
  api = await createTestApi({ dnsServers: [dns.server], dnsTimeoutMs: 1_000 });
  const admin = await api.user("admin");
  doc = (await api.call(admin, "GET", "/api/v1/openapi.json")).body;
  ajv.addSchema({ $id: DOC_ID, components: doc.components });
});
afterAll(async () => {
  await api?.close();
  await dns?.close();
});

const resolve = (ref: string): Json =>
  ref
    .slice(2)
    .split("/")
    .reduce((node: Json, part) => node[part.replaceAll("~1", "/").replaceAll("~0", "~")], doc);

/** The validator of the JSON schema the document declares for one path, method and status. */
const validators = new Map<string, ValidateFunction>();
function schemaOf(path: string, method: string, status: number): ValidateFunction {
  const key = `${method} ${path} ${status}`;
  const cached = validators.get(key);
  if (cached) return cached;
  let response = doc.paths[path]?.[method]?.responses?.[String(status)];
  if (!response) throw new Error(`the document declares no ${status} for ${key}`);
  if (response.$ref) response = resolve(response.$ref);
  const schema = response.content["application/json"].schema as Json;
  // References inside an inline schema (a oneOf of two responses) point into the document too.
  const compiled = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)) as Json);
  validators.set(key, compiled);
  return compiled;
}

/** Makes a real request and checks the live body against the document: status declared, body valid. */
async function checked(
  app: FastifyInstance,
  key: string | undefined,
  method: "get" | "post" | "put" | "patch" | "delete",
  path: string,
  url: string,
  options: { form?: Record<string, string | string[]>; json?: unknown } = {},
) {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const request: InjectOptions = { method: method.toUpperCase() as InjectOptions["method"], url: `/api/v1${url}`, headers };
  if (options.form) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(options.form)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
    request.payload = params.toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  } else if (options.json !== undefined) {
    request.payload = JSON.stringify(options.json);
    headers["content-type"] = "application/json";
  }
  const res = await app.inject(request);
  const body = res.json();
  const validate = schemaOf(path, method, res.statusCode);
  expect(validate(body), `${method} ${url} → ${res.statusCode}: ${JSON.stringify(validate.errors)}`).toBe(true);
  return { status: res.statusCode, body };
}

describe("GET /api/v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("is the document generated from the schemas, public like /api/docs (CONTRACT §16)", async () => {
    expect(doc).toEqual(getOpenApiDocument(scopeOfRoutes(api.app)));
    const res = await api.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(doc);
  });

  it("describes exactly the routes the API registers, with bearer security and both body types", () => {
    const registered = registeredRoutes(api.app)
      .filter((route) => route.url.startsWith("/api/v1/"))
      .map((route) => `${route.method.toLowerCase()} ${route.url.slice("/api/v1".length).replace(/:([A-Za-z_]+)/g, "{$1}")}`);
    const documented = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ["get", "post", "put", "patch", "delete"].includes(key))
        .map((method) => `${method} ${path}`),
    );
    expect([...new Set(documented)].sort()).toEqual([...new Set(registered)].sort());
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(Object.keys(doc.paths["/links"].post.requestBody.content).sort()).toEqual(["application/json", "application/x-www-form-urlencoded"]);
    // Request schemas are core's, converted with io "input".
    const create = resolve(doc.paths["/links"].post.requestBody.content["application/json"].schema.$ref);
    // Required as the server enforces it: a link without domain_id is a 422 on domain_id.
    expect(create.required).toEqual(["url", "domain_id"]);
    expect(create.properties.alias.anyOf[0]).toMatchObject({ type: "string", maxLength: 255, pattern: "^[A-Za-z0-9_-]+$" });
    expect(doc.paths["/links"].get.parameters.find((p: Json) => p.name === "sort_by").schema).toEqual({ type: "string", enum: ["id", "clicks", "title", "alias", "url"] });
  });
});

describe("scopes in the document (CONTRACT §17)", () => {
  it("every operation names the scope its route declares: a bearer requirement with it, x-scopes and a 403; the document itself none", () => {
    const routes = registeredRoutes(api.app).filter((route) => route.url.startsWith("/api/v1/"));
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(item).filter(([key]) => ["get", "post", "put", "patch", "delete"].includes(key)) as Array<[string, Json]>) {
        operations++;
        const route = routes.find((r) => r.method === method.toUpperCase() && r.url === `/api/v1${path.replace(/\{([A-Za-z_]+)\}/g, ":$1")}`);
        expect(route?.scope, `${method} ${path}`).toBeDefined();
        if (route?.scope === "public") {
          expect(op.security, `${method} ${path}`).toEqual([]);
          expect(op["x-scopes"]).toEqual([]);
          continue;
        }
        expect(API_KEY_SCOPES, `${method} ${path}`).toContain(op["x-scopes"]?.[0]);
        expect(op["x-scopes"], `${method} ${path}`).toEqual([route?.scope]);
        expect(op.security, `${method} ${path}`).toEqual([{ bearer: [route?.scope] }]);
        expect(op.description, `${method} ${path}`).toContain(`\`${route?.scope}\` scope`);
        expect(op.responses["403"], `${method} ${path}`).toEqual({ $ref: "#/components/responses/Forbidden" });
      }
    }
    expect(operations).toBe(routes.length);
    expect(doc.paths["/links"].get["x-scopes"]).toEqual(["links:read"]);
    expect(doc.paths["/account/api-keys"].post["x-scopes"]).toEqual(["account"]);
    expect(doc.paths["/openapi.json"].get.security).toEqual([]);
  });

  it("a 403 for a missing scope matches its declared response", async () => {
    const owner = await api.user();
    const created = await checked(api.app, owner.apiKey, "post", "/account/api-keys", "/account/api-keys", { form: { name: "reader", scopes: "links:read" } });
    const refused = await checked(api.app, created.body.data.api_key, "get", "/domains", "/domains");
    expect(refused.body).toEqual({ message: "This API key does not have the domains:read scope.", code: "forbidden", status: 403 });
  });
});

describe("live responses match the schemas the document declares", () => {
  it("named API keys: create, list, delete, 422, 404", async () => {
    const key = (await api.user()).apiKey;
    const created = await checked(api.app, key, "post", "/account/api-keys", "/account/api-keys", { form: { name: "Docs", "scopes[]": ["links:read", "stats:read"], expires_at: "2099-01-01" } });
    expect(created.status).toBe(201);
    expect(created.body.data.api_key).toMatch(/^shk_/);
    await checked(api.app, created.body.data.api_key, "get", "/links", "/links");
    expect((await checked(api.app, key, "get", "/account/api-keys", "/account/api-keys")).body.data).toHaveLength(1);
    expect((await checked(api.app, key, "post", "/account/api-keys", "/account/api-keys", { json: { name: "", scopes: ["nope"] } })).status).toBe(422);
    expect((await checked(api.app, key, "delete", "/account/api-keys/{id}", `/account/api-keys/${created.body.data.id}`)).status).toBe(200);
    expect((await checked(api.app, key, "delete", "/account/api-keys/{id}", `/account/api-keys/${created.body.data.id}`)).status).toBe(404);
  });

  it("links: store, show, list, update (PUT and PATCH), delete, 422, 404, 401", async () => {
    const owner = await createOwner(api);
    const key = owner.user.apiKey;
    const created = await checked(api.app, key, "post", "/links", "/links", {
      form: {
        url: "https://example.com/a",
        domain_id: String(owner.domain.id),
        title: "Documented",
        password: "s3cret",
        space_id: String(owner.space.id),
        "pixel_ids[]": [String(owner.pixel.id)],
        target_type: "1",
        "country[0][key]": "de",
        "country[0][value]": "https://de.example/",
        "rotation[0][value]": "https://r.example/",
        expiration_date: "2099-01-02",
        expiration_time: "03:04",
        expiration_clicks: "10",
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    expect((await checked(api.app, key, "get", "/links/{id}", `/links/${id}`)).status).toBe(200);
    expect((await checked(api.app, key, "get", "/links", "/links?search=Documented&sort_by=clicks&per_page=25")).body.data).toHaveLength(1);
    expect((await checked(api.app, key, "get", "/links", "/links?page=99")).body.meta.from).toBeNull();
    expect((await checked(api.app, key, "put", "/links/{id}", `/links/${id}`, { json: { title: null, space_id: null, expiration_date: null } })).body.data.title).toBeNull();
    expect((await checked(api.app, key, "patch", "/links/{id}", `/links/${id}`, { form: { disabled: "1" } })).body.data.status).toBe(3);

    const invalid = await checked(api.app, key, "post", "/links", "/links", { form: { url: "javascript:alert(1)", privacy: "9" } });
    expect(invalid.status).toBe(422);
    expect((await checked(api.app, key, "get", "/links", "/links?sort_by=nope")).status).toBe(422);
    expect((await checked(api.app, key, "get", "/links/{id}", "/links/99999999")).status).toBe(404);
    expect((await checked(api.app, key, "delete", "/links/{id}", `/links/${id}`)).body).toEqual({ id, object: "link", deleted: true, status: 200 });
    expect((await checked(api.app, key, "delete", "/links/{id}", `/links/${id}`)).status).toBe(404);
    expect((await checked(api.app, undefined, "get", "/links", "/links")).status).toBe(401);
  });

  it("statistics (CONTRACT §8, §21): a link's summary and series, the account's, a domain's orphan visits, 404 and 422", async () => {
    const owner = await createOwner(api);
    const key = owner.user.apiKey;
    const link = (await checked(api.app, key, "post", "/links", "/links", { form: { url: "https://example.com/counted", domain_id: String(owner.domain.id) } })).body.data;
    await recordClicks(api.database.db, [testClick(link.id, new Date().toISOString(), { country: "DE" })]);
    const summary = await checked(api.app, key, "get", "/stats/{id}", `/stats/${link.id}?name=summary`);
    expect(summary.body.data).toMatchObject({ clicks: 1, bots: 0 });
    for (const name of ["clicks", "clicks_hour", "country", "bots"]) expect((await checked(api.app, key, "get", "/stats/{id}", `/stats/${link.id}?name=${name}`)).status).toBe(200);
    expect((await checked(api.app, key, "get", "/stats/{id}", "/stats/99999999?name=summary")).status).toBe(404);
    for (const name of ["summary", "clicks", "links", "referrer"]) expect((await checked(api.app, key, "get", "/stats", `/stats?name=${name}`)).status).toBe(200);
    expect((await checked(api.app, key, "get", "/stats", "/stats?name=nope")).status).toBe(422);
    for (const name of ["summary", "clicks", "alias"]) expect((await checked(api.app, key, "get", "/domains/{id}/visits", `/domains/${owner.domain.id}/visits?name=${name}`)).status).toBe(200);
    expect((await checked(api.app, key, "get", "/domains/{id}/visits", "/domains/99999999/visits?name=summary")).status).toBe(404);
  });

  it("links in bulk (CONTRACT §17): PATCH and DELETE /links, 200 and 422", async () => {
    const owner = await createOwner(api);
    const key = owner.user.apiKey;
    const ids: number[] = [];
    for (const n of [1, 2]) ids.push((await checked(api.app, key, "post", "/links", "/links", { form: { url: `https://example.com/bulk${n}`, domain_id: String(owner.domain.id) } })).body.data.id);
    const changed = await checked(api.app, key, "patch", "/links", "/links", { form: { ids: ids.join(","), title: "Bulk", disabled: "1" } });
    expect(changed.body.data).toHaveLength(2);
    expect((await checked(api.app, key, "patch", "/links", "/links", { json: { ids: [...ids, 2147483647], privacy: 9 } })).status).toBe(422);
    expect((await checked(api.app, key, "delete", "/links", `/links?ids=${ids.join(",")},2147483647`)).status).toBe(422);
    expect((await checked(api.app, key, "delete", "/links", `/links?ids=${ids.join(",")}`)).body).toEqual({ data: ids.map((id) => ({ id, object: "link", deleted: true })), status: 200 });
  });

  it("domains, spaces, pixels, account and users", async () => {
    const admin = (await api.user("admin")).apiKey;
    const domain = await checked(api.app, admin, "post", "/domains", "/domains", { form: { name: `doc-${Date.now()}.example`, index_page: "https://home.example/" } });
    expect(domain.status).toBe(201);
    await checked(api.app, admin, "get", "/domains", "/domains");
    await checked(api.app, admin, "patch", "/domains/{id}", `/domains/${domain.body.data.id}`, { form: { not_found_page: "https://nf.example/" } });
    expect((await checked(api.app, admin, "patch", "/domains/{id}", `/domains/${domain.body.data.id}`, { form: { name: "x.example" } })).status).toBe(422);
    await checked(api.app, admin, "delete", "/domains/{id}", `/domains/${domain.body.data.id}`);
    // A user's domain: unverified with its record, a 422 until the record is published, then verified.
    const claimer = (await api.user()).apiKey;
    const claimed = await checked(api.app, claimer, "post", "/domains", "/domains", { form: { name: `claim-${Date.now()}.example` } });
    expect(claimed.body.data.verification.type).toBe("TXT");
    expect((await checked(api.app, claimer, "post", "/domains/{id}/verify", `/domains/${claimed.body.data.id}/verify`)).status).toBe(422);
    dns.setTxt(claimed.body.data.verification.name, [claimed.body.data.verification.value]);
    expect((await checked(api.app, claimer, "post", "/domains/{id}/verify", `/domains/${claimed.body.data.id}/verify`)).body.data.verified).toBe(true);
    expect((await checked(api.app, admin, "post", "/domains/{id}/verify", `/domains/${claimed.body.data.id}/verify`)).status).toBe(404);

    const space = await checked(api.app, admin, "post", "/spaces", "/spaces", { json: { name: "Docs", color: 2 } });
    await checked(api.app, admin, "get", "/spaces/{id}", `/spaces/${space.body.data.id}`);
    await checked(api.app, admin, "get", "/spaces", "/spaces?sort_by=name&sort=asc");
    await checked(api.app, admin, "delete", "/spaces/{id}", `/spaces/${space.body.data.id}`);

    const pixel = await checked(api.app, admin, "post", "/pixels", "/pixels", { form: { name: "Tag", type: "x", value: "abc" } });
    await checked(api.app, admin, "put", "/pixels/{id}", `/pixels/${pixel.body.data.id}`, { form: { value: "def" } });
    await checked(api.app, admin, "get", "/pixels", "/pixels");
    await checked(api.app, admin, "delete", "/pixels/{id}", `/pixels/${pixel.body.data.id}`);

    await checked(api.app, admin, "get", "/account", "/account");
    const user = await checked(api.app, admin, "post", "/users", "/users", { form: { email: `doc-${Date.now()}@example.test`, name: "Doc" } });
    expect(user.status).toBe(201);
    await checked(api.app, admin, "get", "/users", "/users");
    expect((await checked(api.app, user.body.data.api_key, "get", "/users", "/users")).status).toBe(403);
    const rotated = await checked(api.app, user.body.data.api_key, "post", "/account/api-key", "/account/api-key");
    expect(rotated.status).toBe(201);
    await checked(api.app, admin, "delete", "/users/{id}", `/users/${user.body.data.id}`);
  });

  it("a 429 matches its declared response, headers included", async () => {
    const app = await createApi({ database: api.database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, rateLimitPerMinute: 1 } });
    try {
      const key = (await api.user()).apiKey;
      await checked(app, key, "get", "/account", "/account");
      const limited = await checked(app, key, "get", "/account", "/account");
      expect(limited.status).toBe(429);
      expect(Object.keys(resolve(doc.paths["/account"].get.responses["429"].$ref).headers).sort()).toEqual(["Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]);
    } finally {
      await app.close();
    }
  });

  it("the response schemas catch a field the API does not document", () => {
    const validate = schemaOf("/spaces/{id}", "get", 200);
    const space = { id: 1, name: "a", color: 1, created_at: "2026-11-22T10:00:00.000Z", updated_at: "2026-11-22T10:00:00.000Z" };
    expect(validate({ data: space, status: 200 })).toBe(true);
    expect(validate({ data: { ...space, secret: "x" }, status: 200 })).toBe(false);
    expect(validate({ data: { ...space, color: "1" }, status: 200 })).toBe(false);
  });
});

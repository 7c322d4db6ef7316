import type { InjectOptions } from "fastify";
import { z } from "zod";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../src/http/json.ts";
import { registeredRoutes } from "../src/index.ts";
import { appRouter } from "../src/trpc/router.ts";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

/**
 * Issue #26 item 9 (CONTRACT §2, §15): deeply nested and huge inputs, sent to EVERY tRPC procedure (read
 * from the router) and EVERY REST route (read from Fastify's route table, fields from the OpenAPI
 * document), get a 4xx whose message is a sentence of ours: never "Maximum call stack", a stack, a
 * parser's or framework's words, and never the input echoed back.
 */
// Built before the tests are collected, so the tables below are the app's own.
const api: TestApi = await createTestApi();
const owner = await createOwner(api);
const ids = await (async (): Promise<Record<string, number>> => {
  const link = await api.call(owner.user, "POST", "/api/v1/links", { url: "https://dest.example/", domain_id: String(owner.domain.id) });
  const webhook = await api.call(owner.user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/h", events: "link.created" });
  const key = await api.call(owner.user, "POST", "/api/v1/account/api-keys", { name: "k", scopes: "links:read" });
  return { links: link.body.data.id, stats: link.body.data.id, domains: owner.domain.id, spaces: owner.space.id, pixels: owner.pixel.id, webhooks: webhook.body.data.id, "api-keys": key.body.data.id };
})();
type Operation = { parameters?: Array<{ name: string; in: string }>; requestBody?: { content: Record<string, { schema: { $ref: string } }> } };
const openapi: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } } = (
  await api.app.inject({ method: "GET", url: "/api/v1/openapi.json" })
).json();
afterAll(async () => {
  await api?.close();
});

/** What marks each hostile input, so an echo of it can be seen in any answer. */
const MARK = "hostile";
const deep = (levels: number) => `${"[".repeat(levels)}"${MARK}"${"]".repeat(levels)}`;
/** About 1 MB: under the 1 MiB body limit as JSON, so the fields' own rules must refuse it. */
const HUGE = MARK.repeat(140_000);
/** Over the body limit. */
const OVER = MARK.repeat(160_000);

/** Words no client may read in an error: runtime, parser, framework and library texts. */
const INTERNAL =
  /stack|Maximum|call stack|RangeError|SyntaxError|TypeError|Unexpected (token|end)|JSON at position|is not valid JSON"|TRPCError|ZodError|node_modules|\.ts:\d+|No procedure found|Unsupported (GET|POST)|expected .* received|FST_/;

type Sent = { label: string; request: InjectOptions };

/** The sentences a 4xx carries: REST's `message` (a string, or field → sentences), tRPC's `error.message`s. */
function messagesOf(json: unknown): string[] {
  const items = Array.isArray(json) ? json : [json];
  const out: string[] = [];
  for (const item of items as Array<{ message?: unknown; error?: { message?: unknown } }>) {
    const message = item?.error?.message ?? item?.message;
    if (typeof message === "string") out.push(message);
    else if (message && typeof message === "object") out.push(...Object.entries(message).flatMap(([field, list]) => [field, ...(list as string[])]));
  }
  return out;
}

async function expectRefusedSafely({ label, request }: Sent) {
  const res = await api.app.inject({ ...request, headers: { authorization: `Bearer ${owner.user.apiKey}`, ...request.headers } });
  expect([label, res.statusCode >= 400 && res.statusCode < 500], res.body.slice(0, 300)).toEqual([label, true]);
  const messages = messagesOf(JSON.parse(res.body));
  expect([label, messages.length > 0]).toEqual([label, true]);
  for (const message of messages) {
    expect(message, label).not.toMatch(INTERNAL);
    expect(message.length, label).toBeLessThan(400);
  }
  // No echo: neither the nesting nor a run of the marker, anywhere in the answer.
  expect([label, res.body.includes("[[[["), res.body.includes(MARK.repeat(2))]).toEqual([label, false, false]);
  return res;
}

// ——— tRPC: every procedure of the router ———

type Procedure = { name: string; type: string; keys: string[] };
const procedures: Procedure[] = Object.entries((appRouter._def as unknown as { procedures: Record<string, { _def: { type: string; inputs: z.ZodType[] } }> }).procedures).map(([name, p]) => {
  const input = p._def.inputs[0];
  const keys = input instanceof z.ZodObject ? Object.keys(input.shape) : input ? ["id"] : [];
  return { name, type: p._def.type, keys };
});

function trpcRequest(procedure: Procedure, input: string): InjectOptions {
  return procedure.type === "mutation"
    ? { method: "POST", url: `/trpc/${procedure.name}`, headers: { "content-type": "application/json" }, payload: input }
    : { method: "GET", url: `/trpc/${procedure.name}?input=${encodeURIComponent(input)}` };
}

/** Every field set to `value` (a procedure without input gets an object of one field). */
const everyField = (keys: string[], value: string) => `{${(keys.length ? keys : ["x"]).map((k) => `${JSON.stringify(k)}:${value}`).join(",")}}`;

describe("tRPC: deep and huge inputs to every procedure", () => {
  it("reads the procedures from the router", () => {
    expect(procedures.length).toBeGreaterThan(40);
    expect(procedures.map((p) => p.name)).toEqual(expect.arrayContaining(["webhooks.create", "links.bulkUpdate", "account.apiKeys.create", "links.list"]));
  });

  it.each(procedures)(
    "$name ($type)",
    async (procedure) => {
      for (const levels of [100, 1_000, 5_000]) {
        const res = await expectRefusedSafely({ label: `${levels} levels`, request: trpcRequest(procedure, everyField(procedure.keys, deep(levels))) });
        expect(res.json().error.message).toBe(`The JSON is nested too deeply (at most ${MAX_JSON_DEPTH} levels).`);
      }
      // As a batch too: the same limit, for each call of it.
      const batched = trpcRequest(procedure, `{"0":${everyField(procedure.keys, deep(1_000))}}`);
      const batch = await expectRefusedSafely({ label: "a batch of 1,000 levels", request: { ...batched, url: String(batched.url).replace(/\?|$/, (q) => (q ? "?batch=1&" : "?batch=1")) } });
      expect(batch.statusCode).toBe(400);
      // Over the body limit (mutations; a query's input is in its URL).
      if (procedure.type === "mutation") await expectRefusedSafely({ label: "over the body limit", request: trpcRequest(procedure, everyField(procedure.keys, JSON.stringify(OVER))) });
      // Inside the limits, each field on its own: the field's rules refuse it, in our words. (A procedure
      // without input ignores what it is sent, and would run: it only meets the limits above.)
      for (const key of procedure.keys) {
        await expectRefusedSafely({ label: `${key}: ${MAX_JSON_DEPTH - 2} levels`, request: trpcRequest(procedure, `{${JSON.stringify(key)}:${deep(MAX_JSON_DEPTH - 2)}}`) });
        await expectRefusedSafely({ label: `${key}: a 1 MB string`, request: trpcRequest(procedure, `{${JSON.stringify(key)}:${JSON.stringify(HUGE)}}`) });
        await expectRefusedSafely({ label: `${key}: a list of a 1 MB string`, request: trpcRequest(procedure, `{${JSON.stringify(key)}:[${JSON.stringify(HUGE)}]}`) });
      }
      expect(await expectRefusedSafely({ label: "not JSON", request: trpcRequest(procedure, `{"${MARK}${MARK}`) }).then((r) => r.json().error.message)).toBe("The input is not valid JSON.");
    },
    120_000,
  );
});

// ——— REST: every /api/v1 route of Fastify's route table ———

type Route = { method: string; url: string; bodyKeys: string[]; queryKeys: string[] };
const routes = (): Route[] =>
  registeredRoutes(api.app)
    .filter((r) => r.url.startsWith("/api/v1/") && r.url !== "/api/v1/openapi.json")
    .map((r) => {
      const operation = openapi.paths[r.url.slice("/api/v1".length).replace(/:(\w+)/g, "{$1}")]?.[r.method.toLowerCase()];
      const ref = operation?.requestBody?.content["application/json"]?.schema.$ref;
      const bodyKeys = ref ? Object.keys(openapi.components.schemas[ref.split("/").pop() ?? ""]?.properties ?? {}) : [];
      const queryKeys = (operation?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      return { method: r.method, url: r.url, bodyKeys, queryKeys };
    });

function restPath(url: string): string {
  const kind = url.split("/")[url.includes("/api-keys") ? 4 : 3] ?? "";
  return url.replace(/:\w+/g, String(ids[kind] ?? 1));
}

describe("REST: deep and huge bodies and queries to every route", () => {
  it("reads the routes from Fastify and their fields from the OpenAPI document", () => {
    const all = routes();
    expect(all.length).toBeGreaterThan(40);
    expect(all.find((r) => r.method === "POST" && r.url === "/api/v1/webhooks")?.bodyKeys).toEqual(expect.arrayContaining(["url", "events"]));
    expect(all.find((r) => r.method === "GET" && r.url === "/api/v1/links")?.queryKeys).toEqual(expect.arrayContaining(["search", "per_page"]));
  });

  // Fastify's route table (the app is built before the tests are collected): one test per route.
  it.each(routes())(
    "$method $url",
    async (route) => {
      const path = restPath(route.url);
      const method = route.method as InjectOptions["method"] & string;
      const json = (payload: string): InjectOptions => ({ method, url: path, headers: { "content-type": "application/json" }, payload });
      const at = `${route.method} ${route.url}`;
      if (method !== "GET") {
        for (const levels of [100, 1_000, 5_000]) {
          const res = await expectRefusedSafely({ label: `${at}: ${levels} levels`, request: json(everyField(route.bodyKeys, deep(levels))) });
          // Bodies are read only where a route takes them: the CSV upload answers 415 to JSON.
          if (res.statusCode !== 415) expect([at, res.json()]).toEqual([at, { message: `The JSON is nested too deeply (at most ${MAX_JSON_DEPTH} levels).`, code: "bad_request", status: 400 }]);
        }
        await expectRefusedSafely({ label: `${at}: over the body limit`, request: json(everyField(route.bodyKeys, JSON.stringify(OVER))) });
        for (const key of route.bodyKeys) {
          await expectRefusedSafely({ label: `${at} ${key}: ${MAX_JSON_DEPTH - 2} levels`, request: json(`{${JSON.stringify(key)}:${deep(MAX_JSON_DEPTH - 2)}}`) });
          await expectRefusedSafely({ label: `${at} ${key}: a 1 MB string`, request: json(`{${JSON.stringify(key)}:${JSON.stringify(HUGE)}}`) });
          await expectRefusedSafely({
            label: `${at} ${key}: a 1 MB form value`,
            request: { method, url: path, headers: { "content-type": "application/x-www-form-urlencoded" }, payload: `${key}=${HUGE}` },
          });
        }
        const broken = await expectRefusedSafely({ label: `${at}: not JSON`, request: json(`{"${MARK}${MARK}`) });
        if (broken.statusCode !== 415) expect(broken.json().message).toBe("The request body is not valid JSON.");
      }
      for (const key of route.queryKeys) await expectRefusedSafely({ label: `${at} ?${key}= a 1 MB value`, request: { method, url: `${path}?${key}=${HUGE}` } });
    },
    120_000,
  );
});

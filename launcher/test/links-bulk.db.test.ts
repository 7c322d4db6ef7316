import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers.ts";

/**
 * CONTRACT §17 bulk changes end to end: links made and changed through the REST API of the whole
 * service, visited through its visitor side on the same port; after a bulk disable or delete every link
 * of the batch answers its new state within a second (§7.12), and links outside it are untouched.
 */
const ADMIN_KEY = `shk_${"B".repeat(40)}`;
let server: TestServer;
let base: string;
let domainId: number;

beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: "100000" });
  base = server.base;
  domainId = (await api("POST", "/api/v1/domains", { name: new URL(base).host })).body.data.id;
}, 120_000);

afterAll(async () => {
  await server?.close();
});

async function api(method: string, path: string, form?: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  return { status: res.status, body: await res.json() };
}

async function newLinks(n: number): Promise<Array<{ id: number; alias: string }>> {
  const made = [];
  for (let i = 0; i < n; i++) {
    const res = await api("POST", "/api/v1/links", { url: `https://dest.example/${i}`, domain_id: String(domainId) });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    made.push({ id: res.body.data.id as number, alias: res.body.data.alias as string });
  }
  return made;
}

const visit = async (alias: string) => (await fetch(`${base}/${alias}`, { redirect: "manual" })).status;

/** Polls until every alias answers `expected`, for at most a second; the statuses seen last. */
async function statusesWithin(aliases: string[], expected: number): Promise<number[]> {
  const started = Date.now();
  let seen: number[] = [];
  while (Date.now() - started < 1000) {
    seen = await Promise.all(aliases.map(visit));
    if (seen.every((s) => s === expected)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return seen;
}

describe("bulk changes through the API, seen by visitors within 1 second", () => {
  const cases = [
    { name: "PATCH /api/v1/links disabled=1", change: (ids: string) => api("PATCH", "/api/v1/links", { ids, disabled: "1" }), expected: 404 },
    { name: "DELETE /api/v1/links?ids=…", change: (ids: string) => api("DELETE", `/api/v1/links?ids=${ids}`), expected: 404 },
  ];
  it.each(cases)("$name", async ({ change, expected }) => {
    const batch = await newLinks(5);
    const [outside] = await newLinks(1);
    // Visited first: each link sits in the visitor side's cache.
    for (const link of [...batch, outside]) expect(await visit(link?.alias ?? "")).toBe(302);
    const res = await change(batch.map((l) => l.id).join(","));
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(5);
    expect(
      await statusesWithin(
        batch.map((l) => l.alias),
        expected,
      ),
    ).toEqual(batch.map(() => expected));
    expect(await visit(outside?.alias ?? "")).toBe(302);
  });

  it("a batch refused (one unknown id) changes nothing on the visitor side", async () => {
    const batch = await newLinks(3);
    for (const link of batch) expect(await visit(link.alias)).toBe(302);
    const res = await api("PATCH", "/api/v1/links", { ids: `${batch.map((l) => l.id).join(",")},2147483647`, disabled: "1" });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.message)).toEqual(["ids"]);
    await new Promise((r) => setTimeout(r, 300));
    for (const link of batch) expect(await visit(link.alias)).toBe(302);
  });
});

import { and, eq, inArray } from "drizzle-orm";
import { onLocalChange, type Change } from "@shortener/core";
import { webhookEvents } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, trpcClient, trpcFailure as failure, type TestApi } from "./helpers.ts";

/** CONTRACT §17 bulk: `DELETE /api/v1/links?ids=…`, `PATCH /api/v1/links`, tRPC `links.bulkDelete` / `links.bulkUpdate`. */
let api: TestApi;
let owner: Owner;
let stranger: Owner;
beforeAll(async () => {
  api = await createTestApi();
  owner = await createOwner(api);
  stranger = await createOwner(api);
});
afterAll(async () => {
  await api?.close();
});

type Owner = Awaited<ReturnType<typeof createOwner>>;
type Body = Record<string, string | string[]>;

async function newLinks(who: Owner, n: number, form: Body = {}): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await api.call(who.user, "POST", "/api/v1/links", { url: `https://dest.example/${i}`, domain_id: String(who.domain.id), title: `t${i}`, ...form });
    if (res.status !== 201) throw new Error(`create failed: ${JSON.stringify(res.body)}`);
    ids.push(res.body.data.id as number);
  }
  return ids;
}

async function sendJson(who: Owner, method: "PATCH" | "DELETE", url: string, payload: unknown) {
  const res = await api.app.inject({ method, url, headers: { authorization: `Bearer ${who.user.apiKey}`, "content-type": "application/json" }, payload: JSON.stringify(payload) });
  return { status: res.statusCode, body: res.json() };
}

/** Each link as GET /links/{id} shows it (status and body): the row-by-row check that nothing changed. */
async function snapshot(who: Owner, ids: number[]) {
  return Promise.all(ids.map(async (id) => api.call(who.user, "GET", `/api/v1/links/${id}`).then((r) => ({ status: r.status, body: r.body }))));
}

/** The change notifications this process hears while `fn` runs. */
async function changesDuring(fn: () => Promise<unknown>): Promise<Change[]> {
  const heard: Change[] = [];
  const off = onLocalChange((change) => heard.push(change));
  try {
    await fn();
  } finally {
    off();
  }
  return heard;
}

describe("DELETE /api/v1/links?ids=…", () => {
  const cases: Array<{ name: string; query: (ids: number[]) => string; expected: (ids: number[]) => number[] }> = [
    { name: "a comma list", query: (ids) => `ids=${ids.join(",")}`, expected: (ids) => ids },
    { name: "ids[]=", query: (ids) => ids.map((id) => `ids[]=${id}`).join("&"), expected: (ids) => ids },
    { name: "repeated ids=", query: (ids) => ids.map((id) => `ids=${id}`).join("&"), expected: (ids) => ids },
    { name: "duplicates, counted once", query: (ids) => `ids=${[...ids, ids[0]].join(",")}`, expected: (ids) => ids },
  ];
  it.each(cases)("deletes with $name, and answers one entry per link", async ({ query, expected }) => {
    const ids = await newLinks(owner, 3);
    let res: Awaited<ReturnType<TestApi["call"]>> | undefined;
    const heard = await changesDuring(async () => {
      res = await api.call(owner.user, "DELETE", `/api/v1/links?${query(ids)}`);
    });
    expect(res?.status).toBe(200);
    expect(res?.body).toEqual({ data: expected(ids).map((id) => ({ id, object: "link", deleted: true })), status: 200 });
    for (const shown of await snapshot(owner, ids)) expect(shown.status).toBe(404);
    // One notification for the whole batch, naming every link.
    expect(heard).toHaveLength(1);
    expect(heard[0]?.kind).toBe("links");
    expect(heard[0]?.kind === "links" && heard[0].links.map(([id]) => id).sort()).toEqual([...ids].sort());
  });
});

describe("PATCH /api/v1/links", () => {
  it("form body: applies the fields to every link, answers a list envelope in the order sent, one notification", async () => {
    const [a = 0, b = 0, c = 0] = await newLinks(owner, 3);
    const order = [c, a, b];
    let res: Awaited<ReturnType<TestApi["call"]>> | undefined;
    const heard = await changesDuring(async () => {
      res = await api.call(owner.user, "PATCH", "/api/v1/links", { ids: order.join(","), disabled: "1", title: "Bulk", space_id: String(owner.space.id) });
    });
    expect(res?.status).toBe(200);
    expect(res?.body.status).toBe(200);
    expect(res?.body.data.map((l: { id: number }) => l.id)).toEqual(order);
    for (const link of res?.body.data ?? []) expect(link).toMatchObject({ disabled: 1, status: 3, title: "Bulk", space: { id: owner.space.id } });
    expect(res?.body.meta).toMatchObject({ current_page: 1, from: 1, to: 3, total: 3, last_page: 1, per_page: 3 });
    expect(res?.body.links.first).toMatch(/^https?:\/\//);
    // The same JSON as the single-link endpoint.
    const single = await api.call(owner.user, "GET", `/api/v1/links/${order[0]}`);
    expect(res?.body.data[0]).toEqual(single.body.data);
    expect(heard).toHaveLength(1);
    expect(heard[0]?.kind === "links" && heard[0].links.map(([id]) => id)).toEqual(order);
  });

  const bodies: Array<{ name: string; send: (ids: number[]) => Promise<{ status: number; body: any }> }> = [
    { name: "ids[] in a form", send: (ids) => api.call(owner.user, "PATCH", "/api/v1/links", { "ids[]": ids.map(String), pixel_ids: String(owner.pixel.id), expiration_clicks: "7" }) },
    { name: "a JSON body", send: (ids) => sendJson(owner, "PATCH", "/api/v1/links", { ids, pixel_ids: [owner.pixel.id], expiration_clicks: 7 }) },
    { name: "ids in the query", send: (ids) => api.call(owner.user, "PATCH", `/api/v1/links?ids=${ids.join(",")}`, { pixel_ids: String(owner.pixel.id), expiration_clicks: "7" }) },
    { name: "duplicate ids", send: (ids) => sendJson(owner, "PATCH", "/api/v1/links", { ids: [...ids, ...ids], pixel_ids: [owner.pixel.id], expiration_clicks: 7 }) },
  ];
  it.each(bodies)("takes $name", async ({ send }) => {
    const ids = await newLinks(owner, 2);
    const res = await send(ids);
    expect(res.status).toBe(200);
    expect(res.body.data.map((l: { id: number }) => l.id)).toEqual(ids);
    for (const link of res.body.data) expect(link).toMatchObject({ expiration_clicks: 7, pixels: [{ id: owner.pixel.id }] });
  });

  it("a lone expiration_time keeps each link's own stored date; pixels replace each link's", async () => {
    const day = (n: number) => new Date(Date.now() + 86_400_000 * n).toISOString().slice(0, 10);
    const [a = 0] = await newLinks(owner, 1, { expiration_date: day(10), expiration_time: "01:00" });
    const [b = 0] = await newLinks(owner, 1, { expiration_date: day(20), expiration_time: "02:00" });
    const [c = 0] = await newLinks(owner, 1);
    const res = await api.call(owner.user, "PATCH", "/api/v1/links", { ids: `${a},${b}`, expiration_time: "23:45", "pixel_ids[]": [String(owner.pixel.id)] });
    expect(res.status).toBe(200);
    expect(res.body.data.map((l: { expiration_date: string; expiration_time: string }) => [l.expiration_date, l.expiration_time])).toEqual([
      [day(10), "23:45"],
      [day(20), "23:45"],
    ]);
    // A link without a date cannot take a lone time: the whole batch is refused.
    const before = await snapshot(owner, [a, b, c]);
    const refused = await api.call(owner.user, "PATCH", "/api/v1/links", { ids: `${a},${b},${c}`, expiration_time: "10:00" });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.message)).toEqual(["expiration_time"]);
    expect(await snapshot(owner, [a, b, c])).toEqual(before);
    const cleared = await api.call(owner.user, "PATCH", "/api/v1/links", { ids: `${a},${b}`, expiration_date: "", pixel_ids: "" });
    for (const link of cleared.body.data) expect(link).toMatchObject({ ends_at: null, pixels: [] });
  });

  it("records one link.updated event per link, in the same transaction", async () => {
    const hook = await api.call(owner.user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/bulk", "events[]": ["link.updated", "link.deleted"] });
    expect(hook.status).toBe(201);
    try {
      const ids = await newLinks(owner, 3);
      const events = () =>
        api.database.db
          .select()
          .from(webhookEvents)
          .where(and(eq(webhookEvents.workspaceId, owner.user.workspaceId), inArray(webhookEvents.type, ["link.updated", "link.deleted"])));
      const before = (await events()).length;
      expect((await api.call(owner.user, "PATCH", "/api/v1/links", { ids: ids.join(","), title: "Evented" })).status).toBe(200);
      const updated = (await events()).slice(before);
      expect(updated.map((e) => e.type)).toEqual(["link.updated", "link.updated", "link.updated"]);
      expect(updated.map((e) => (e.data as { id: number; title: string }).id)).toEqual(ids);
      // A failing batch records nothing.
      expect((await api.call(owner.user, "PATCH", "/api/v1/links", { ids: `${ids.join(",")},2147483647`, title: "No" })).status).toBe(422);
      expect((await events()).length).toBe(before + 3);
      expect((await api.call(owner.user, "DELETE", `/api/v1/links?ids=${ids.join(",")}`)).status).toBe(200);
      const deleted = (await events()).slice(before + 3);
      expect(deleted.map((e) => [e.type, (e.data as { id: number }).id])).toEqual(ids.map((id) => ["link.deleted", id]));
    } finally {
      await api.call(owner.user, "DELETE", `/api/v1/webhooks/${hook.body.data.id}`);
    }
  });
});

describe("duplicate ids count once against the 100 (issue #26 item 12b)", () => {
  /** 101 copies of one id, then 50 copies each of three: more than 100 entries, at most 3 links. */
  const copies = (ids: number[]) => (ids.length === 1 ? Array.from({ length: 101 }, () => ids[0] ?? 0) : ids.flatMap((id) => Array.from({ length: 50 }, () => id)));
  const cases: Array<{ name: string; n: number; send: (ids: number[]) => Promise<{ status: number; body: any }>; deletes: boolean }> = [
    { name: "DELETE ?ids=, 101 copies of one id", n: 1, send: (ids) => api.call(owner.user, "DELETE", `/api/v1/links?ids=${copies(ids).join(",")}`), deletes: true },
    {
      name: "DELETE ?ids[]=, 150 entries of three ids",
      n: 3,
      send: (ids) =>
        api.call(
          owner.user,
          "DELETE",
          `/api/v1/links?${copies(ids)
            .map((id) => `ids[]=${id}`)
            .join("&")}`,
        ),
      deletes: true,
    },
    { name: "PATCH form, 101 copies of one id", n: 1, send: (ids) => api.call(owner.user, "PATCH", "/api/v1/links", { ids: copies(ids).join(","), title: "Deduplicated" }), deletes: false },
    { name: "PATCH JSON, 150 entries of three ids", n: 3, send: (ids) => sendJson(owner, "PATCH", "/api/v1/links", { ids: copies(ids), title: "Deduplicated" }), deletes: false },
    {
      name: "tRPC links.bulkDelete, 101 copies of one id",
      n: 1,
      send: async (ids) => ({ status: 200, body: await trpcClient(api.app, owner.user.apiKey).links.bulkDelete.mutate({ ids: copies(ids) }) }),
      deletes: true,
    },
    {
      name: "tRPC links.bulkUpdate, 150 entries of three ids",
      n: 3,
      send: async (ids) => ({ status: 200, body: await trpcClient(api.app, owner.user.apiKey).links.bulkUpdate.mutate({ ids: copies(ids), title: "Deduplicated" }) }),
      deletes: false,
    },
  ];
  it.each(cases)("$name: each link once", async ({ n, send, deletes }) => {
    const ids = await newLinks(owner, n);
    const res = await send(ids);
    expect(res.status).toBe(200);
    expect(res.body.data.map((entry: { id: number }) => entry.id)).toEqual(ids);
    for (const shown of await snapshot(owner, ids)) {
      if (deletes) expect(shown.status).toBe(404);
      else expect(shown.body.data.title).toBe("Deduplicated");
    }
  });

  it("101 distinct ids are still too many, however many copies", async () => {
    const distinct = Array.from({ length: 101 }, (_, i) => 2_000_000_000 + i);
    const res = await api.call(owner.user, "DELETE", `/api/v1/links?ids=${[...distinct, ...distinct].join(",")}`);
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({ ids: ["The ids may not have more than 100 items."] });
  });
});

describe("all or nothing: one bad id or field is a 422 with every failing field, and nothing changes", () => {
  const tooMany = Array.from({ length: 101 }, (_, i) => String(i + 1)).join(",");
  type Case = { name: string; method: "PATCH" | "DELETE"; request: (mine: number[], foreign: number[]) => { url: string; form?: Body }; fields: string[] };
  const cases: Case[] = [
    { name: "DELETE: one foreign id among valid ones", method: "DELETE", request: (m, f) => ({ url: `/api/v1/links?ids=${m[0]},${f[0]},${m[1]}` }), fields: ["ids"] },
    { name: "DELETE: one unknown id", method: "DELETE", request: (m) => ({ url: `/api/v1/links?ids=${m.join(",")},2147483647` }), fields: ["ids"] },
    { name: "DELETE: no ids", method: "DELETE", request: () => ({ url: "/api/v1/links" }), fields: ["ids"] },
    { name: "DELETE: empty ids", method: "DELETE", request: () => ({ url: "/api/v1/links?ids=" }), fields: ["ids"] },
    { name: "DELETE: a word among the ids", method: "DELETE", request: (m) => ({ url: `/api/v1/links?ids=${m[0]},abc` }), fields: ["ids"] },
    { name: "DELETE: 101 ids", method: "DELETE", request: () => ({ url: `/api/v1/links?ids=${tooMany}` }), fields: ["ids"] },
    { name: "PATCH: one foreign id among valid ones", method: "PATCH", request: (m, f) => ({ url: "/api/v1/links", form: { ids: [...m, f[0]].join(","), disabled: "1" } }), fields: ["ids"] },
    {
      name: "PATCH: a foreign id and a bad field",
      method: "PATCH",
      request: (m, f) => ({ url: "/api/v1/links", form: { ids: [f[0], ...m].join(","), url: "javascript:alert(1)" } }),
      fields: ["ids", "url"],
    },
    {
      name: "PATCH: bad fields",
      method: "PATCH",
      request: (m) => ({ url: "/api/v1/links", form: { ids: m.join(","), disabled: "1", privacy: "9", expiration_clicks: "-1" } }),
      fields: ["privacy", "expiration_clicks"],
    },
    { name: "PATCH: domain_id cannot change", method: "PATCH", request: (m) => ({ url: "/api/v1/links", form: { ids: m.join(","), domain_id: "1" } }), fields: ["domain_id"] },
    { name: "PATCH: one alias for many links", method: "PATCH", request: (m) => ({ url: "/api/v1/links", form: { ids: m.join(","), alias: "same-for-all" } }), fields: ["alias"] },
    { name: "PATCH: a foreign space", method: "PATCH", request: (m) => ({ url: "/api/v1/links", form: { ids: m.join(","), space_id: String(stranger.space.id) } }), fields: ["space_id"] },
    { name: "PATCH: a rule a stored link breaks", method: "PATCH", request: (m) => ({ url: "/api/v1/links", form: { ids: m.join(","), target_type: "1" } }), fields: ["country"] },
    { name: "PATCH: no ids", method: "PATCH", request: () => ({ url: "/api/v1/links", form: { disabled: "1" } }), fields: ["ids"] },
    { name: "PATCH: empty ids", method: "PATCH", request: () => ({ url: "/api/v1/links", form: { ids: "", disabled: "1" } }), fields: ["ids"] },
    { name: "PATCH: 101 ids", method: "PATCH", request: () => ({ url: "/api/v1/links", form: { ids: tooMany, disabled: "1" } }), fields: ["ids"] },
  ];
  it.each(cases)("$name", async ({ method, request, fields }) => {
    const mine = await newLinks(owner, 3);
    const foreign = await newLinks(stranger, 1);
    const before = await snapshot(owner, mine);
    const foreignBefore = await snapshot(stranger, foreign);
    const { url, form } = request(mine, foreign);
    const res = await api.call(owner.user, method, url, form);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expect(Object.keys(res.body.message).sort()).toEqual([...fields].sort());
    expect(await snapshot(owner, mine)).toEqual(before);
    expect(await snapshot(stranger, foreign)).toEqual(foreignBefore);
  });

  it("a foreign id is named like an unknown one, never told apart", async () => {
    const [mine] = await newLinks(owner, 1);
    const [theirs] = await newLinks(stranger, 1);
    const res = await api.call(owner.user, "DELETE", `/api/v1/links?ids=${mine},${theirs}`);
    expect(res.body.message).toEqual({ ids: [`The selected ids are invalid: ${theirs}.`] });
    const unknown = await api.call(owner.user, "DELETE", `/api/v1/links?ids=${mine},2147483647`);
    expect(unknown.body.message).toEqual({ ids: ["The selected ids are invalid: 2147483647."] });
  });

  it("a single id may take an alias; a taken one is a 422 with nothing changed", async () => {
    const [a = 0, b = 0] = await newLinks(owner, 2);
    const alias = `bulk${Date.now().toString(36)}`;
    const ok = await api.call(owner.user, "PATCH", "/api/v1/links", { ids: String(a), alias });
    expect(ok.status).toBe(200);
    expect(ok.body.data[0].alias).toBe(alias);
    const before = await snapshot(owner, [b]);
    const taken = await api.call(owner.user, "PATCH", "/api/v1/links", { ids: String(b), alias });
    expect(taken.status).toBe(422);
    expect(Object.keys(taken.body.message)).toEqual(["alias"]);
    expect(await snapshot(owner, [b])).toEqual(before);
  });
});

describe("tRPC links.bulkDelete and links.bulkUpdate", () => {
  it("update and delete answer REST's objects", async () => {
    const client = trpcClient(api.app, owner.user.apiKey);
    const ids = await newLinks(owner, 2);
    const updated = await client.links.bulkUpdate.mutate({ ids, title: "Typed", disabled: 1 });
    expect(updated.data.map((l) => l.id)).toEqual(ids);
    const rest = await api.call(owner.user, "GET", `/api/v1/links/${ids[0]}`);
    expect(updated.data[0]).toEqual(rest.body.data);
    expect(updated.data[1]).toMatchObject({ title: "Typed", disabled: 1, status: 3 });
    expect(await client.links.bulkDelete.mutate({ ids })).toEqual({ data: ids.map((id) => ({ id, object: "link", deleted: true })) });
  });

  it.each([
    { name: "a foreign id", input: (m: number[], f: number[]) => ({ ids: [...m, ...f], title: "x" }), fields: ["ids"] },
    { name: "a bad field and a foreign id", input: (m: number[], f: number[]) => ({ ids: [...m, ...f], url: "ftp://x.example/" }), fields: ["url"] },
    { name: "101 ids", input: () => ({ ids: Array.from({ length: 101 }, (_, i) => i + 1), title: "x" }), fields: ["ids"] },
    { name: "no ids", input: () => ({ ids: [], title: "x" }), fields: ["ids"] },
    { name: "a zero id", input: (m: number[]) => ({ ids: [...m, 0], title: "x" }), fields: ["ids"] },
  ])("bulkUpdate: $name is a validation error, nothing changed", async ({ input, fields }) => {
    const client = trpcClient(api.app, owner.user.apiKey);
    const mine = await newLinks(owner, 2);
    const foreign = await newLinks(stranger, 1);
    const before = await snapshot(owner, mine);
    const error = await failure(client.links.bulkUpdate.mutate(input(mine, foreign)));
    expect(error.data?.slug).toBe("validation_failed");
    expect(Object.keys(error.data?.fieldErrors ?? {}).sort()).toEqual(fields);
    expect(await snapshot(owner, mine)).toEqual(before);
  });

  it("bulkDelete: a foreign id deletes nothing", async () => {
    const client = trpcClient(api.app, owner.user.apiKey);
    const mine = await newLinks(owner, 2);
    const foreign = await newLinks(stranger, 1);
    const error = await failure(client.links.bulkDelete.mutate({ ids: [...mine, ...foreign] }));
    expect(error.data?.fieldErrors).toEqual({ ids: [`The selected ids are invalid: ${foreign[0]}.`] });
    for (const shown of await snapshot(owner, mine)) expect(shown.status).toBe(200);
    for (const shown of await snapshot(stranger, foreign)) expect(shown.status).toBe(200);
  });
});

import { count, eq } from "drizzle-orm";
import { links } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, trpcClient, type TestApi } from "./helpers.ts";

/* CONTRACT §25, first half: tags, UTM fields and weighted rotation entries over the real API (docs/link-features.md). */

let api: TestApi;
let owner: Awaited<ReturnType<typeof createOwner>>;
let stranger: Awaited<ReturnType<typeof createOwner>>;
beforeAll(async () => {
  api = await createTestApi();
  owner = await createOwner(api);
  stranger = await createOwner(api);
});
afterAll(async () => {
  await api?.close();
});

type Form = Record<string, string | string[]>;
const base = (): Form => ({ url: "https://dest.example/landing?ref=mail#top", domain_id: String(owner.domain.id) });
const create = (form: Form) => api.call(owner.user, "POST", "/api/v1/links", form);
const update = (id: number, form: Form) => api.call(owner.user, "PUT", `/api/v1/links/${id}`, form);
const rotation = (entries: Array<Record<string, string>>) => Object.fromEntries(entries.flatMap((e, i) => Object.entries(e).map(([k, v]) => [`rotation[${i}][${k}]`, v])));
const linkCount = async () => (await api.database.db.select({ n: count() }).from(links).where(eq(links.workspaceId, owner.user.workspaceId)))[0]?.n ?? 0;

describe("hostile input: a 422 naming the field, nothing stored", () => {
  const cases: Array<[string, () => Form, string]> = [
    ["21 tags", () => ({ ...base(), "tags[]": Array.from({ length: 21 }, (_, i) => `t${i}`) }), "tags"],
    ["a 33-character tag", () => ({ ...base(), "tags[]": ["ok", "x".repeat(33)] }), "tags"],
    // A form's empty entry is "no value" (null), and the NUL check of CONTRACT §15 runs on every field first: both name the entry.
    ["an empty tag in a list", () => ({ ...base(), "tags[]": ["ok", ""] }), "tags.1"],
    ["an empty tag in a comma list", () => ({ ...base(), tags: "a,,b" }), "tags"],
    ["a blank tag", () => ({ ...base(), "tags[]": ["   "] }), "tags"],
    ["a tag with a NUL", () => ({ ...base(), "tags[]": ["a\u0000b"] }), "tags.0"],
    ["a tag with a newline", () => ({ ...base(), "tags[]": ["a\nb"] }), "tags"],
    ["a tag with a right-to-left override", () => ({ ...base(), "tags[]": ["\u202Egnp.exe"] }), "tags"],
    ["a tag with a semicolon", () => ({ ...base(), "tags[]": ["a;b"] }), "tags"],
    ["tags as an object", () => ({ ...base(), "tags[a]": "b" }), "tags"],
    ["weight 0", () => ({ ...base(), target_type: "4", ...rotation([{ value: "https://a.example/", weight: "0" }]) }), "rotation.0.weight"],
    ["weight 101", () => ({ ...base(), target_type: "4", ...rotation([{ value: "https://a.example/", weight: "101" }]) }), "rotation.0.weight"],
    ["weight 1.5", () => ({ ...base(), target_type: "4", ...rotation([{ value: "https://a.example/", weight: "1.5" }]) }), "rotation.0.weight"],
    ['weight "x"', () => ({ ...base(), target_type: "4", ...rotation([{ value: "https://a.example/", weight: "x" }]) }), "rotation.0.weight"],
    ["weight -5", () => ({ ...base(), target_type: "4", ...rotation([{ value: "https://a.example/", weight: "-5" }]) }), "rotation.0.weight"],
    ["weights on some entries only", () => ({ ...base(), target_type: "4", ...rotation([{ value: "https://a.example/", weight: "10" }, { value: "https://b.example/" }]) }), "rotation"],
    ["a weight on a country target", () => ({ ...base(), target_type: "1", "country[0][key]": "US", "country[0][value]": "https://us.example/", "country[0][weight]": "5" }), "country.0.weight"],
    [
      "a weight on a platform target",
      () => ({ ...base(), target_type: "2", "platform[0][key]": "iOS", "platform[0][value]": "https://ios.example/", "platform[0][weight]": "5" }),
      "platform.0.weight",
    ],
    ["utm_source with CRLF", () => ({ ...base(), utm_source: "news\r\nSet-Cookie: x=1" }), "utm_source"],
    ["utm_medium with a NUL", () => ({ ...base(), utm_medium: "a\u0000b" }), "utm_medium"],
    ["utm_campaign over 255 characters", () => ({ ...base(), utm_campaign: "c".repeat(256) }), "utm_campaign"],
    ["utm_term huge", () => ({ ...base(), utm_term: "t".repeat(100_000) }), "utm_term"],
    ["utm_content as a list", () => ({ ...base(), "utm_content[]": ["a", "b"] }), "utm_content"],
    ["utm that pushes url over 2048 characters", () => ({ ...base(), url: `https://a.example/${"x".repeat(1900)}`, utm_campaign: "c".repeat(200) }), "url"],
  ];

  it.each(cases)("%s", async (_name, form, field) => {
    const before = await linkCount();
    const res = await create(form());
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expect(Object.keys(res.body.message)).toContain(field);
    for (const messages of Object.values(res.body.message as Record<string, string[]>)) for (const m of messages) expect(m).toMatch(/^The .+\.$/);
    expect(await linkCount()).toBe(before);
  });

  it("an update with a bad field changes nothing; bulk updates refuse UTM fields", async () => {
    const link = (await create({ ...base(), "tags[]": ["keep"] })).body.data;
    const forms: Form[] = [
      { "tags[]": Array.from({ length: 21 }, (_, i) => `t${i}`) },
      { utm_source: "a\r\nb" },
      { url: `https://a.example/${"x".repeat(2030)}`, utm_source: "abcdefghijklmnopqrstuvwxyz" },
    ];
    for (const form of forms) {
      const res = await update(link.id, form);
      expect(res.status).toBe(422);
    }
    const bulk = await api.call(owner.user, "PATCH", "/api/v1/links", { ids: String(link.id), utm_source: "x" });
    expect(bulk.status).toBe(422);
    expect(Object.keys(bulk.body.message)).toEqual(["utm_source"]);
    const after = (await api.call(owner.user, "GET", `/api/v1/links/${link.id}`)).body.data;
    expect(after.tags).toEqual(["keep"]);
    expect(after.url).toBe(link.url);
  });
});

describe("tags", () => {
  it("are taken as tags[], a comma list or JSON; trimmed, copies merged without regard to case, order kept", async () => {
    const a = await create({ ...base(), "tags[]": [" Summer Sale ", "news", "NEWS", "émoji 🎉"] });
    expect(a.status).toBe(201);
    expect(a.body.data.tags).toEqual(["Summer Sale", "news", "émoji 🎉"]);
    const b = await create({ ...base(), tags: "x1,x2" });
    expect(b.body.data.tags).toEqual(["x1", "x2"]);
    const c = await create({ ...base() });
    expect(c.body.data.tags).toEqual([]);
    const twenty = await create({ ...base(), "tags[]": Array.from({ length: 20 }, (_, i) => `t${i}`) });
    expect(twenty.status).toBe(201);
    expect(twenty.body.data.tags).toHaveLength(20);
  });

  it("keep the workspace's first spelling; filter by any of several tags, case-insensitively; count per workspace", async () => {
    const t = `Camp${Math.random().toString(36).slice(2, 7)}`;
    const first = (await create({ ...base(), "tags[]": [t, "onlyhere"] })).body.data;
    const second = (await create({ ...base(), "tags[]": [t.toUpperCase()] })).body.data;
    expect(second.tags).toEqual([t]);
    const other = (await create({ ...base(), "tags[]": ["Elsewhere"] })).body.data;
    await create({ ...base() });
    // Another workspace's tag of the same name is its own.
    await api.call(stranger.user, "POST", "/api/v1/links", { url: "https://s.example/", domain_id: String(stranger.domain.id), "tags[]": [t, t + "s"] });

    const one = await api.call(owner.user, "GET", `/api/v1/links?tag=${encodeURIComponent(t.toLowerCase())}`);
    expect(one.status).toBe(200);
    expect(one.body.data.map((l: { id: number }) => l.id).sort()).toEqual([first.id, second.id].sort());
    expect(one.body.meta.total).toBe(2);
    expect(one.body.links.first).toContain("tag=");
    const any = await api.call(owner.user, "GET", `/api/v1/links?tag=${t}&tag=elsewhere`);
    expect(any.body.data.map((l: { id: number }) => l.id).sort()).toEqual([first.id, second.id, other.id].sort());
    const comma = await api.call(owner.user, "GET", `/api/v1/links?tag=${t},ELSEWHERE`);
    expect(comma.body.meta.total).toBe(3);
    const none = await api.call(owner.user, "GET", "/api/v1/links?tag=nosuchtag");
    expect(none.body.data).toEqual([]);
    const bad = await api.call(owner.user, "GET", `/api/v1/links?tag=${"x".repeat(33)}`);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.message)).toEqual(["tag"]);

    const tags = await api.call(owner.user, "GET", "/api/v1/tags");
    expect(tags.status).toBe(200);
    const byName = new Map((tags.body.data as Array<{ name: string; count: number }>).map((r) => [r.name, r.count]));
    expect(byName.get(t)).toBe(2);
    expect(byName.get("onlyhere")).toBe(1);
    expect(byName.has(t.toUpperCase())).toBe(false);
    expect(byName.has(t + "s")).toBe(false);
    const counts = (tags.body.data as Array<{ count: number }>).map((r) => r.count);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
    const theirs = await api.call(stranger.user, "GET", "/api/v1/tags");
    expect(theirs.body.data).toEqual(expect.arrayContaining([{ name: t, count: 1 }]));
    expect(theirs.body.data.some((r: { name: string }) => r.name === "onlyhere")).toBe(false);

    // tRPC answers the same counts, and lists by tag.
    const trpc = trpcClient(api.app, owner.user.apiKey);
    expect((await trpc.tags.list.query()).data).toEqual(tags.body.data);
    expect((await trpc.links.list.query({ tag: [t] })).data.map((l) => l.id).sort()).toEqual([first.id, second.id].sort());
  });

  it("an update replaces them, an empty value removes them, and the audit log records the change", async () => {
    const link = (await create({ ...base(), "tags[]": ["a", "b"] })).body.data;
    expect((await update(link.id, { "tags[]": ["c"] })).body.data.tags).toEqual(["c"]);
    expect((await update(link.id, { title: "no tag change" })).body.data.tags).toEqual(["c"]);
    expect((await update(link.id, { tags: "" })).body.data.tags).toEqual([]);
    const audit = await api.call(owner.user, "GET", `/api/v1/audit?object_type=link&object_id=${link.id}`);
    expect(audit.status).toBe(200);
    const entries = audit.body.data as Array<{ action: string; changes: Record<string, unknown> }>;
    expect(entries.find((e) => e.action === "link.created")?.changes.tags).toEqual({ after: ["a", "b"] });
    expect(entries.map((e) => e.changes.tags)).toContainEqual({ before: ["a", "b"], after: ["c"] });
    const bulk = await api.call(owner.user, "PATCH", "/api/v1/links", { ids: String(link.id), "tags[]": ["bulk"] });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data[0].tags).toEqual(["bulk"]);
  });
});

describe("tag counts kept by the database (workspace_tags, ADR 0051)", () => {
  it("follow creates, updates, bulk updates, moves to nothing and deletes (one and bulk), and always equal a recount of the links", async () => {
    // A workspace of its own, so the recount sees only this test's links.
    const me = await createOwner(api);
    const mine = (form: Form) => api.call(me.user, "POST", "/api/v1/links", { url: "https://dest.example/x", domain_id: String(me.domain.id), ...form });
    const pool = ["Alpha", "beta", "Gamma ray", "δέλτα", "e", "F"];
    const recount = async () => {
      const all = (await api.call(me.user, "GET", "/api/v1/links?per_page=100")).body.data as Array<{ tags: string[] }>;
      const counts = new Map<string, number>();
      for (const l of all) for (const t of l.tags) counts.set(t.toLowerCase(), (counts.get(t.toLowerCase()) ?? 0) + 1);
      return counts;
    };
    const listed = async () => {
      const res = await api.call(me.user, "GET", "/api/v1/tags");
      expect(res.status).toBe(200);
      return new Map((res.body.data as Array<{ name: string; count: number }>).map((r) => [r.name.toLowerCase(), r.count]));
    };
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const tagsOf = () => pool.filter(() => next() < 0.4).map((t) => (next() < 0.3 ? t.toUpperCase() : t));
    const ids: number[] = [];
    for (let i = 0; i < 24; i++) {
      const res = await mine({ "tags[]": tagsOf() });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    expect(await listed()).toEqual(await recount());
    for (const id of ids.slice(0, 8)) expect((await api.call(me.user, "PUT", `/api/v1/links/${id}`, { "tags[]": tagsOf() })).status).toBe(200);
    expect((await api.call(me.user, "PUT", `/api/v1/links/${ids[8]}`, { tags: "" })).status).toBe(200);
    expect(await listed()).toEqual(await recount());
    expect((await api.call(me.user, "PATCH", "/api/v1/links", { ids: ids.slice(9, 14).join(","), "tags[]": ["beta", "new one"] })).status).toBe(200);
    expect(await listed()).toEqual(await recount());
    expect((await api.call(me.user, "DELETE", `/api/v1/links/${ids[14]}`)).status).toBe(200);
    expect((await api.call(me.user, "DELETE", `/api/v1/links?ids=${ids.slice(15, 20).join(",")}`)).status).toBe(200);
    expect(await listed()).toEqual(await recount());

    // A tag whose last link lets go of it is gone, and the next link may spell it anew.
    const lone = (await mine({ "tags[]": ["Lonely"] })).body.data;
    expect((await listed()).get("lonely")).toBe(1);
    expect((await api.call(me.user, "PUT", `/api/v1/links/${lone.id}`, { "tags[]": ["other"] })).status).toBe(200);
    expect((await listed()).has("lonely")).toBe(false);
    expect((await mine({ "tags[]": ["LONELY"] })).body.data.tags).toEqual(["LONELY"]);
    // While one link carries a tag, its first spelling stays: a create and an update take it.
    expect((await mine({ "tags[]": ["lonely"] })).body.data.tags).toEqual(["LONELY"]);
    expect(await listed()).toEqual(await recount());
  });
});

describe("UTM fields", () => {
  it("merge into url's query on create: replace a same-name parameter in place, keep the rest and the fragment; read back from url", async () => {
    const res = await create({ ...base(), url: "https://dest.example/p?a=1&utm_source=old&b=x%20y#frag", utm_source: "news letter", utm_campaign: "fall/26" });
    expect(res.status).toBe(201);
    expect(res.body.data.url).toBe("https://dest.example/p?a=1&utm_source=news%20letter&b=x%20y&utm_campaign=fall%2F26#frag");
    expect(res.body.data).toMatchObject({ utm_source: "news letter", utm_campaign: "fall/26", utm_medium: null, utm_term: null, utm_content: null });
  });

  it("merge into the stored url on update, or the url sent with them; an empty value removes that parameter", async () => {
    const link = (await create({ ...base(), utm_source: "a", utm_medium: "email" })).body.data;
    expect(link.url).toBe("https://dest.example/landing?ref=mail&utm_source=a&utm_medium=email#top");
    const changed = (await update(link.id, { utm_source: "b", utm_medium: "" })).body.data;
    expect(changed.url).toBe("https://dest.example/landing?ref=mail&utm_source=b#top");
    expect(changed.utm_medium).toBeNull();
    const moved = (await update(link.id, { url: "https://new.example/?q=1", utm_term: "t" })).body.data;
    expect(moved.url).toBe("https://new.example/?q=1&utm_term=t");
    expect(moved.utm_source).toBeNull();
  });
});

describe("weighted rotation entries", () => {
  it("are stored and returned with their weight; unweighted entries say null", async () => {
    const weighted = await create({
      ...base(),
      target_type: "4",
      ...rotation([
        { value: "https://a.example/", weight: "70" },
        { value: "https://b.example/", weight: "30" },
      ]),
    });
    expect(weighted.status).toBe(201);
    expect(weighted.body.data.rotation_target).toEqual([
      { value: "https://a.example/", weight: 70 },
      { value: "https://b.example/", weight: 30 },
    ]);
    const plain = await create({ ...base(), target_type: "4", ...rotation([{ value: "https://a.example/" }]) });
    expect(plain.body.data.rotation_target).toEqual([{ value: "https://a.example/", weight: null }]);
    const stats = await api.call(owner.user, "GET", `/api/v1/stats/${weighted.body.data.id}?name=variant`);
    expect(stats.status).toBe(200);
    expect(stats.body.data).toEqual([]);
  });
});

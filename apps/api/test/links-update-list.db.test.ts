import { eq } from "drizzle-orm";
import { links } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});

type Owner = Awaited<ReturnType<typeof createOwner>>;
const future = new Date(Date.now() + 86_400_000 * 30).toISOString().slice(0, 10);

async function newLink(owner: Owner, form: Record<string, string | string[]> = {}) {
  const res = await api.call(owner.user, "POST", "/api/v1/links", { url: "https://dest.example/", domain_id: String(owner.domain.id), ...form });
  if (res.status !== 201) throw new Error(`create failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

describe("updating a link (CONTRACT §4: only sent fields change, empty values clear)", () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await createOwner(api);
  });

  it.each(["PUT", "PATCH"] as const)("%s changes only the sent fields", async (method) => {
    const link = await newLink(owner, { title: "Keep me", expiration_clicks: "10" });
    const res = await api.call(owner.user, method, `/api/v1/links/${link.id}`, { url: "https://changed.example/" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ url: "https://changed.example/", title: "Keep me", expiration_clicks: 10, alias: link.alias });
  });

  it("empty values remove the password, space, pixels, expiration and a targeting group", async () => {
    const link = await newLink(owner, {
      password: "pw",
      space_id: String(owner.space.id),
      "pixel_ids[]": [String(owner.pixel.id)],
      expiration_date: future,
      expiration_time: "08:30",
      expiration_url: "https://gone.example/",
      expiration_clicks: "5",
      title: "T",
      "rotation[0][value]": "https://r.example/",
    });
    const res = await api.call(owner.user, "PATCH", `/api/v1/links/${link.id}`, {
      password: "",
      space_id: "",
      pixel_ids: "",
      expiration_date: "",
      expiration_url: "",
      expiration_clicks: "",
      title: "",
      rotation: "",
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      password: false,
      space: null,
      pixels: [],
      ends_at: null,
      expiration_date: null,
      expiration_time: null,
      expiration_url: null,
      expiration_clicks: 0,
      title: null,
      rotation_target: null,
    });
  });

  it("a lone time keeps the stored date; a lone date keeps the stored time", async () => {
    const link = await newLink(owner, { expiration_date: future, expiration_time: "08:30" });
    const time = await api.call(owner.user, "PATCH", `/api/v1/links/${link.id}`, { expiration_time: "22:15" });
    expect(time.body.data.ends_at).toBe(`${future}T22:15:00.000Z`);
    const later = new Date(Date.now() + 86_400_000 * 60).toISOString().slice(0, 10);
    const date = await api.call(owner.user, "PATCH", `/api/v1/links/${link.id}`, { expiration_date: later });
    expect(date.body.data.ends_at).toBe(`${later}T22:15:00.000Z`);
  });

  it.each([
    ["domain_id cannot change", () => ({ domain_id: "1" }), "domain_id"],
    ["url cannot be emptied", () => ({ url: "" }), "url"],
    ["url rules still apply", () => ({ url: "javascript:alert(1)" }), "url"],
    ["a lone time needs a stored date", () => ({ expiration_time: "10:00" }), "expiration_time"],
    ["target type without entries", () => ({ target_type: "3" }), "language"],
    ["privacy 2 needs a privacy password", () => ({ privacy: "2" }), "privacy_password"],
    ["a reserved alias", () => ({ alias: "stats" }), "alias"],
    ["a past expiration", () => ({ expiration_date: "2001-01-01" }), "expiration_date"],
  ])("%s", async (_name, form, field) => {
    const link = await newLink(owner);
    const res = await api.call(owner.user, "PUT", `/api/v1/links/${link.id}`, form());
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.message)).toContain(field);
  });

  it("an alias change to a taken alias is a 422; to its own alias is fine", async () => {
    const a = await newLink(owner);
    const b = await newLink(owner);
    const clash = await api.call(owner.user, "PATCH", `/api/v1/links/${b.id}`, { alias: a.alias });
    expect(clash.status).toBe(422);
    expect(clash.body.message).toEqual({ alias: ["The alias has already been taken."] });
    expect((await api.call(owner.user, "PATCH", `/api/v1/links/${b.id}`, { alias: b.alias })).status).toBe(200);
  });

  it("a target type may rely on entries stored already; sending a group replaces it", async () => {
    const link = await newLink(owner, { "country[0][key]": "US", "country[0][value]": "https://us.example/" });
    const typed = await api.call(owner.user, "PATCH", `/api/v1/links/${link.id}`, { target_type: "1" });
    expect(typed.body.data).toMatchObject({ target_type: 1, country_target: [{ key: "US", value: "https://us.example/" }] });
    const replaced = await api.call(owner.user, "PATCH", `/api/v1/links/${link.id}`, { "country[0][key]": "fr", "country[0][value]": "https://fr.example/" });
    expect(replaced.body.data.country_target).toEqual([{ key: "FR", value: "https://fr.example/" }]);
    const emptied = await api.call(owner.user, "PATCH", `/api/v1/links/${link.id}`, { country: "" });
    expect(emptied.status).toBe(422);
  });

  it("a new password is hashed anew; an unknown id is a 404", async () => {
    const link = await newLink(owner, { password: "one" });
    const [before] = await api.database.db.select({ h: links.passwordHash }).from(links).where(eq(links.id, link.id));
    await api.call(owner.user, "PATCH", `/api/v1/links/${link.id}`, { password: "two" });
    const [after] = await api.database.db.select({ h: links.passwordHash }).from(links).where(eq(links.id, link.id));
    expect(after?.h).toMatch(/^scrypt\$/);
    expect(after?.h).not.toBe(before?.h);
    expect((await api.call(owner.user, "PATCH", "/api/v1/links/2000000000", { title: "x" })).status).toBe(404);
  });

  it("delete answers the deleted envelope, then the link is gone", async () => {
    const link = await newLink(owner);
    const res = await api.call(owner.user, "DELETE", `/api/v1/links/${link.id}`);
    expect(res.body).toEqual({ id: link.id, object: "link", deleted: true, status: 200 });
    expect((await api.call(owner.user, "GET", `/api/v1/links/${link.id}`)).status).toBe(404);
    expect((await api.call(owner.user, "DELETE", `/api/v1/links/${link.id}`)).status).toBe(404);
  });
});

describe("listing links (CONTRACT §5, §6)", () => {
  let owner: Owner;
  const made = { active: 0, disabled: 0, clickLimited: 0, dateExpired: 0, otherDomain: 0, secondDomainId: 0 };
  beforeAll(async () => {
    owner = await createOwner(api);
    const secondDomain = (await api.call(owner.user, "POST", "/api/v1/domains", { name: `second-${Date.now()}.example` })).body.data;
    made.active = (await newLink(owner, { title: "Alpha report", alias: "alpha-1", url: "https://one.example/100%_real" })).id;
    made.disabled = (await newLink(owner, { title: "Beta", alias: "beta-2", disabled: "1" })).id;
    made.clickLimited = (await newLink(owner, { title: "Gamma", alias: "gamma-3", expiration_clicks: "2", space_id: String(owner.space.id) })).id;
    made.dateExpired = (await newLink(owner, { title: "Delta", alias: "delta-4", "pixel_ids[]": [String(owner.pixel.id)] })).id;
    made.otherDomain = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://two.example/", domain_id: String(secondDomain.id), title: "Alpha two", alias: "eps-5" })).body.data.id;
    await api.database.db
      .update(links)
      .set({ clicks: 2 })
      .where(eq(links.id, Number(made.clickLimited)));
    await api.database.db
      .update(links)
      .set({ endsAt: new Date("2020-01-01T00:00:00Z") })
      .where(eq(links.id, Number(made.dateExpired)));
    made.secondDomainId = secondDomain.id;
  });

  const ids = async (query: string) => {
    const res = await api.call(owner.user, "GET", `/api/v1/links?${query}`);
    expect(res.status).toBe(200);
    return res.body.data.map((l: { id: number }) => l.id);
  };

  it.each([
    ["status=0", () => [made.otherDomain, made.dateExpired, made.clickLimited, made.disabled, made.active]],
    ["status=1", () => [made.otherDomain, made.active]],
    ["status=2", () => [made.dateExpired, made.clickLimited]],
    ["status=3", () => [made.disabled]],
    ["search=ALPHA", () => [made.otherDomain, made.active]],
    ["search=alpha&search_by=alias", () => [made.active]],
    ["search=100%25_&search_by=url", () => [made.active]],
    ["search=%25&search_by=title", () => []],
    ["search=_&search_by=title", () => []],
    ["search=two.example&search_by=url", () => [made.otherDomain]],
    ["space_id=SPACE", () => [made.clickLimited]],
    ["pixel_id=PIXEL", () => [made.dateExpired]],
    ["domain_id=DOMAIN2", () => [made.otherDomain]],
    ["sort_by=id&sort=asc", () => [made.active, made.disabled, made.clickLimited, made.dateExpired, made.otherDomain]],
    ["sort_by=title&sort=asc", () => [made.active, made.otherDomain, made.disabled, made.dateExpired, made.clickLimited]],
    ["sort_by=alias&sort=desc", () => [made.clickLimited, made.otherDomain, made.dateExpired, made.disabled, made.active]],
    ["sort_by=clicks&sort=desc", () => [made.clickLimited, made.otherDomain, made.dateExpired, made.disabled, made.active]],
  ])("%s", async (query, expected) => {
    const q = query.replace("SPACE", String(owner.space.id)).replace("PIXEL", String(owner.pixel.id)).replace("DOMAIN2", String(made.secondDomainId));
    expect(await ids(q)).toEqual(expected());
  });

  it("each link's status field matches the filter it appears under", async () => {
    for (const status of [1, 2, 3]) {
      const res = await api.call(owner.user, "GET", `/api/v1/links?status=${status}&per_page=100`);
      for (const link of res.body.data) expect(link.status).toBe(status);
    }
  });

  it.each([
    "per_page=5",
    "per_page=1000",
    "per_page=abc",
    "page=0",
    "page=-1",
    "page=x",
    "status=4",
    "sort=sideways",
    "sort_by=password",
    "search_by=domain",
    "space_id=abc",
    `search=${"x".repeat(256)}`,
  ])("%s is a 422", async (query) => {
    const res = await api.call(owner.user, "GET", `/api/v1/links?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
  });

  it("pages never overlap or skip, even when every sort key ties; links keep the filters", async () => {
    const tied = await createOwner(api);
    const created: number[] = [];
    for (let i = 0; i < 23; i++) created.push((await newLink(tied, { title: "same" })).id);
    const seen: number[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await api.call(tied.user, "GET", `/api/v1/links?sort_by=title&sort=asc&per_page=10&page=${page}`);
      seen.push(...res.body.data.map((l: { id: number }) => l.id));
      expect(res.body.meta).toMatchObject({ current_page: page, per_page: 10, total: 23, last_page: 3, from: (page - 1) * 10 + 1 });
    }
    expect(seen).toEqual([...created].sort((a, b) => a - b));
    const page2 = await api.call(tied.user, "GET", "/api/v1/links?sort_by=title&sort=asc&per_page=10&page=2");
    expect(page2.body.links.next).toBe("http://localhost:80/api/v1/links?sort_by=title&sort=asc&per_page=10&page=3");
    expect(page2.body.links.prev).toBe("http://localhost:80/api/v1/links?sort_by=title&sort=asc&per_page=10&page=1");
    const past = await api.call(tied.user, "GET", "/api/v1/links?page=9");
    expect(past.body).toMatchObject({ data: [], meta: { from: null, to: null, total: 23, current_page: 9 }, links: { next: null } });
  });
});

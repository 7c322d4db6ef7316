import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../src/index.ts";
import { createOwner, createTestApi, trpcClient, type TestApi } from "./helpers.ts";

/**
 * CONTRACT §15 (issue #26 item 12c): names that are displayed — API keys, spaces, pixels, users — refuse
 * control characters (C0, DEL, C1), the Unicode line separators and the bidirectional embeddings,
 * overrides and isolates, with a 422 naming the field, over REST (create and update) and tRPC alike;
 * nothing is stored. Right-to-left text, its marks and emoji joiners stay accepted. (Webhooks have no
 * name: their URL follows the URL rules of §4.)
 */
let api: TestApi;
let owner: Awaited<ReturnType<typeof createOwner>>;
let admin: Awaited<ReturnType<TestApi["user"]>>;
beforeAll(async () => {
  api = await createTestApi();
  owner = await createOwner(api);
  admin = await api.user("admin");
});
afterAll(async () => {
  await api?.close();
});

const hex = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));

/** Every refused character: C0, DEL, C1, U+2028/U+2029, the bidi embeddings and overrides, the isolates. */
const BAD = [...range(0x00, 0x1f), "\u007f", ...range(0x80, 0x9f), "\u2028", "\u2029", ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)];

/** Names that must stay accepted: Hebrew and Arabic with their marks, emoji with joiners, accents. */
const GOOD = ["שלום 2026", "\u200fמבצע\u200f", "تسويق\u061c", "👩\u200d💻 team", "Café déjà vu", "a\u200cb"];

type Reply = { status: number; fields: string[]; name?: string };
type NameField = {
  name: string;
  max: number;
  /** Sends `name` through REST (a form body): the status, the fields of a 422, the name answered otherwise. */
  rest: (name: string) => Promise<Reply>;
  /** The same through tRPC: a validation error's fields, or the name answered. */
  trpc: (name: string) => Promise<{ fields: string[]; name?: string }>;
  /** What is stored: how many objects, or the updated object's name (to see nothing changed). */
  stored: () => Promise<unknown>;
};

const sent = async (who: { apiKey: string }, method: "POST" | "PATCH", url: string, form: Record<string, string>): Promise<Reply> => {
  const res = await api.call(who.apiKey, method, url, form);
  return res.status === 422 ? { status: 422, fields: Object.keys(res.body.message) } : { status: res.status, fields: [], name: res.body.data?.name };
};
const trpcFields = async (call: () => Promise<{ name: string } | { data: { name: string } }>): Promise<{ fields: string[]; name?: string }> => {
  const error = await call().then(
    (answer) => ("data" in answer ? answer.data.name : answer.name),
    (error: unknown) => {
      if (!(error instanceof TRPCClientError)) throw error;
      return error as TRPCClientError<AppRouter>;
    },
  );
  if (typeof error === "string") return { fields: [], name: error };
  expect(error.data?.code).toBe("BAD_REQUEST");
  return { fields: Object.keys(error.data?.fieldErrors ?? {}) };
};
let serial = 0;
const next = () => `${Date.now().toString(36)}${serial++}`;

const fields: NameField[] = [
  {
    name: "API key name (create)",
    max: 100,
    rest: (name) => sent(owner.user, "POST", "/api/v1/account/api-keys", { name, scopes: "links:read" }),
    trpc: (name) => trpcFields(() => trpcClient(api.app, owner.user.apiKey).account.apiKeys.create.mutate({ name, scopes: ["links:read"] })),
    stored: async () => (await api.call(owner.user, "GET", "/api/v1/account/api-keys")).body.meta.total,
  },
  {
    name: "space name (create)",
    max: 32,
    rest: (name) => sent(owner.user, "POST", "/api/v1/spaces", { name }),
    trpc: (name) => trpcFields(() => trpcClient(api.app, owner.user.apiKey).spaces.create.mutate({ name })),
    stored: async () => (await api.call(owner.user, "GET", "/api/v1/spaces")).body.meta.total,
  },
  {
    name: "space name (update)",
    max: 32,
    rest: (name) => sent(owner.user, "PATCH", `/api/v1/spaces/${owner.space.id}`, { name }),
    trpc: (name) => trpcFields(() => trpcClient(api.app, owner.user.apiKey).spaces.update.mutate({ id: owner.space.id, name })),
    stored: async () => (await api.call(owner.user, "GET", `/api/v1/spaces/${owner.space.id}`)).body.data.name,
  },
  {
    name: "pixel name (create)",
    max: 255,
    rest: (name) => sent(owner.user, "POST", "/api/v1/pixels", { name, type: "facebook", value: "1" }),
    trpc: (name) => trpcFields(() => trpcClient(api.app, owner.user.apiKey).pixels.create.mutate({ name, type: "facebook", value: "1" })),
    stored: async () => (await api.call(owner.user, "GET", "/api/v1/pixels")).body.meta.total,
  },
  {
    name: "pixel name (update)",
    max: 255,
    rest: (name) => sent(owner.user, "PATCH", `/api/v1/pixels/${owner.pixel.id}`, { name }),
    trpc: (name) => trpcFields(() => trpcClient(api.app, owner.user.apiKey).pixels.update.mutate({ id: owner.pixel.id, name })),
    stored: async () => (await api.call(owner.user, "GET", `/api/v1/pixels/${owner.pixel.id}`)).body.data.name,
  },
  {
    name: "user name (admin create)",
    max: 255,
    rest: (name) => sent(admin, "POST", "/api/v1/users", { email: `${next()}@names.example`, name }),
    trpc: (name) => trpcFields(() => trpcClient(api.app, admin.apiKey).users.create.mutate({ email: `${next()}@names.example`, name })),
    stored: async () => (await api.call(admin, "GET", "/api/v1/users?search=names.example&search_by=email")).body.meta.total,
  },
];

describe("displayed names refuse control and bidirectional-override characters", () => {
  it.each(fields)("$name: every bad character, inside a name and leading it, is a 422 on `name`; nothing stored", async ({ rest, trpc, stored }) => {
    const before = await stored();
    for (const c of BAD) {
      // Whitespace at the ends (tab, newline, U+2028, …) is trimmed away before the check, as spaces are.
      const names = c.trim() === "" ? [`ab${c}cd`] : [`ab${c}cd`, `${c}gnp.exe`];
      for (const name of names) expect([hex(c), name.length, await rest(name)]).toEqual([hex(c), name.length, { status: 422, fields: ["name"] }]);
    }
    // The issue's own example over tRPC, and one character of each kind.
    for (const c of ["\u202e", "\u2066", "\u0007", "\u007f", "\u0085", "\u2028"]) expect([hex(c), await trpc(`gn${c}p.exe`)]).toEqual([hex(c), { fields: ["name"] }]);
    expect([await trpc("\u202egnp.exe")]).toEqual([{ fields: ["name"] }]);
    expect(await stored()).toEqual(before);
  });

  it.each(fields)("$name: right-to-left text, its marks and joiners are accepted and kept", async ({ max, rest, trpc }) => {
    for (const good of GOOD) {
      // Unique per call (space names are unique per user), and within the field's length.
      const [r, t] = [`${good} r${next()}`, `${good} t${next()}`];
      if (t.length > max) continue;
      const answered = await rest(r);
      expect(answered).toMatchObject({ fields: [], name: r });
      expect(answered.status).toBeLessThan(300);
      expect(await trpc(t)).toEqual({ fields: [], name: t });
    }
  });
});

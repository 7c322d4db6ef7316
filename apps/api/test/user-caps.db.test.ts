import { MAX_NAMED_KEYS_PER_USER, MAX_WEBHOOKS_PER_USER } from "@shortener/core";
import type { TestUser } from "@shortener/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "./helpers.ts";

/**
 * Per-user caps hold under concurrency (CONTRACT §15; issue #26 item 11): a fresh user firing more
 * creates at once than the cap allows gets exactly the cap's worth of 201s, the rest 422, and holds
 * exactly the cap afterwards — on PGlite and on Postgres (where the creates really run side by side on
 * the pool's connections).
 */
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});

type Cap = {
  name: string;
  max: number;
  /** The i-th create; `form` is its body. */
  create: (i: number) => { url: string; form: Record<string, string> };
  /** The field the 422 names, and its message. */
  refusal: Record<string, string[]>;
  /** How many the user holds now. */
  held: (user: TestUser) => Promise<number>;
};

const total = async (user: TestUser, path: string) => (await api.call(user, "GET", path)).body.meta.total as number;

const caps: Cap[] = [
  {
    name: "webhooks",
    max: MAX_WEBHOOKS_PER_USER,
    create: (i) => ({ url: "/api/v1/webhooks", form: { url: `https://hooks.example/race/${i}`, events: "link.created" } }),
    refusal: { url: [`You can have at most ${MAX_WEBHOOKS_PER_USER} webhooks: delete one first.`] },
    held: (user) => total(user, "/api/v1/webhooks"),
  },
  {
    name: "named API keys",
    max: MAX_NAMED_KEYS_PER_USER,
    create: (i) => ({ url: "/api/v1/account/api-keys", form: { name: `race ${i}`, scopes: "links:read" } }),
    refusal: { name: [`You cannot have more than ${MAX_NAMED_KEYS_PER_USER} API keys; delete one first.`] },
    held: (user) => total(user, "/api/v1/account/api-keys"),
  },
];

describe("per-user caps under concurrency", () => {
  it.each(caps)("$name: cap + 15 parallel creates by a fresh user → exactly the cap succeed, the rest 422", async ({ max, create, refusal, held }) => {
    const user = await api.user();
    const results = await Promise.all(
      Array.from({ length: max + 15 }, (_, i) => {
        const { url, form } = create(i);
        return api.call(user, "POST", url, form);
      }),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(max);
    expect(statuses.filter((s) => s === 422)).toHaveLength(15);
    for (const refused of results.filter((r) => r.status === 422)) expect(refused.body.message).toEqual(refusal);
    expect(await held(user)).toBe(max);
  });
});

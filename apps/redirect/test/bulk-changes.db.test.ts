import { sql } from "drizzle-orm";
import { bulkDeleteLinks, bulkUpdateLinks, CHANGES_CHANNEL } from "@shortener/core";
import { openTestDb } from "@shortener/core/testing";
import type { Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSite, startVisitor, type Site, type Visitor } from "./helpers.ts";

/**
 * CONTRACT §17 bulk changes on the visitor side (§7.12): every link of a batch answers its new state
 * within a second, from the one notification the batch sends.
 */
let database: Database;
let visitor: Visitor;
let site: Site;
beforeAll(async () => {
  database = await openTestDb();
  visitor = await startVisitor(database);
  site = await createSite(database);
});
afterAll(async () => {
  await visitor?.close();
  await database?.close();
});

/** Polls every link until each answers `expected` (status and Location), for at most a second; the answers seen last. */
async function answersWithin(aliases: string[], expected: string, ms = 1000): Promise<string[]> {
  const started = Date.now();
  let seen: string[] = [];
  while (Date.now() - started < ms) {
    seen = await Promise.all(
      aliases.map(async (alias) => {
        const res = await visitor.visit(`/${alias}`, { host: site.host, method: "HEAD" });
        return `${res.status} ${String(res.headers.location ?? "")}`;
      }),
    );
    if (seen.every((s) => s === expected)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return seen;
}

async function cachedLinks(n: number) {
  const made = [];
  for (let i = 0; i < n; i++) made.push(await site.link({ url: `https://dest.example/${i}` }));
  // Visited once: each link is now in the visitor side's cache (for 30 s unless a change is announced).
  for (const link of made) expect((await visitor.visit(`/${link.alias}`, { host: site.host, method: "HEAD" })).status).toBe(302);
  return made;
}

describe("bulk changes reach the visitor side within 1 second", () => {
  const cases = [
    { name: "bulk disable", change: (ids: number[]) => bulkUpdateLinks({ ctx: site.user.ctx, input: { ids, disabled: 1 } }), expected: "404 " },
    { name: "bulk new destination", change: (ids: number[]) => bulkUpdateLinks({ ctx: site.user.ctx, input: { ids, url: "https://after.example/" } }), expected: "302 https://after.example/" },
    { name: "bulk delete", change: (ids: number[]) => bulkDeleteLinks({ ctx: site.user.ctx, input: { ids } }), expected: "404 " },
  ];
  it.each(cases)("$name", async ({ change, expected }) => {
    const made = await cachedLinks(5);
    await change(made.map((l) => l.id));
    expect(
      await answersWithin(
        made.map((l) => l.alias),
        expected,
      ),
    ).toEqual(made.map(() => expected));
  });

  it("a batch announced by another process (one NOTIFY naming every link) drops each cached link", async () => {
    const made = await cachedLinks(4);
    // Written straight to the database, as another process's API would: this process hears only the NOTIFY.
    const ids = made.map((l) => l.id);
    await database.db.execute(
      sql`update links set disabled = true where id in (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )})`,
    );
    // Not announced yet: the cache still answers the old state.
    const first = made[0]?.alias ?? "";
    expect(await answersWithin([first], "404 ", 200)).toEqual(["302 https://dest.example/0"]);
    const payload = JSON.stringify({ kind: "links", links: made.map((l) => [l.id, site.domainId, l.alias]) });
    await database.db.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${payload})`);
    expect(
      await answersWithin(
        made.map((l) => l.alias),
        "404 ",
      ),
    ).toEqual(made.map(() => "404 "));
  });
});

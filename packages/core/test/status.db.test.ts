import { eq } from "drizzle-orm";
import { domains, links, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkStatus, linkStatusSql } from "../src/index.ts";
import { createTestUser, openTestDb, unique } from "../src/testing/index.ts";

let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

const now = new Date("2026-06-01T12:00:00Z");
const cases = [
  { disabled: false, endsAt: null, expirationClicks: 0, clicks: 0, expected: 1 },
  { disabled: false, endsAt: null, expirationClicks: 0, clicks: 1e6, expected: 1 },
  { disabled: false, endsAt: new Date("2026-06-01T12:00:01Z"), expirationClicks: 0, clicks: 0, expected: 1 },
  { disabled: false, endsAt: new Date("2026-06-01T12:00:00Z"), expirationClicks: 0, clicks: 0, expected: 2 },
  { disabled: false, endsAt: new Date("2025-01-01T00:00:00Z"), expirationClicks: 0, clicks: 0, expected: 2 },
  { disabled: false, endsAt: null, expirationClicks: 5, clicks: 4, expected: 1 },
  { disabled: false, endsAt: null, expirationClicks: 5, clicks: 5, expected: 2 },
  { disabled: false, endsAt: null, expirationClicks: 5, clicks: 6, expected: 2 },
  { disabled: true, endsAt: null, expirationClicks: 0, clicks: 0, expected: 3 },
  { disabled: true, endsAt: new Date("2025-01-01T00:00:00Z"), expirationClicks: 1, clicks: 9, expected: 3 },
];

describe("link status (CONTRACT §6)", () => {
  it("the in-memory rule and the SQL rule agree on every case", async () => {
    const user = await createTestUser(database.db);
    const [domain] = await database.db.insert(domains).values({ userId: user.id, name: `${unique()}.example` }).returning();
    if (!domain) throw new Error("no domain");
    for (const c of cases) {
      const { expected, ...fields } = c;
      expect(linkStatus(fields, now)).toBe(expected);
      const [row] = await database.db
        .insert(links)
        .values({ userId: user.id, domainId: domain.id, alias: unique("a"), url: "https://x.example/", ...fields })
        .returning({ id: links.id });
      const [fromSql] = await database.db.select({ status: linkStatusSql(now) }).from(links).where(eq(links.id, row?.id ?? 0));
      expect(fromSql?.status).toBe(expected);
    }
  });
});

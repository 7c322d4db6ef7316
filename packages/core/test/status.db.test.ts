import { eq } from "drizzle-orm";
import { links, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkStatus, linkStatusSql } from "../src/index.ts";
import { createTestUser, insertTestDomain, openTestDb, unique } from "../src/testing/index.ts";
import { STATUS_CASES as cases, STATUS_NOW as now } from "./expiration-cases.ts";

let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

describe("link status (CONTRACT §6)", () => {
  it("the in-memory rule and the SQL rule agree on every case", async () => {
    const user = await createTestUser(database.db);
    const domain = await insertTestDomain(database.db, user.workspaceId);
    for (const c of cases) {
      const { expected, ...fields } = c;
      expect(linkStatus(fields, now)).toBe(expected);
      const [row] = await database.db
        .insert(links)
        .values({ workspaceId: user.workspaceId, domainId: domain.id, alias: unique("a"), url: "https://x.example/", ...fields })
        .returning({ id: links.id });
      const [fromSql] = await database.db
        .select({ status: linkStatusSql(now) })
        .from(links)
        .where(eq(links.id, row?.id ?? 0));
      expect(fromSql?.status).toBe(expected);
    }
  });
});

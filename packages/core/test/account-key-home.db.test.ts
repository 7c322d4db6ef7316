import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateApiKey, createWorkspace, rotateAccountKey } from "@shortener/core";
import { createTestUser, openTestDb } from "@shortener/core/testing";
import type { Database } from "@shortener/db";

let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

describe("the account's own key (CONTRACT §9, §24)", () => {
  it("rotated from a session acting in a shared workspace, it stays in the personal workspace and the old one stops", async () => {
    const user = await createTestUser(database.db);
    const team = await createWorkspace({ ctx: user.ctx, input: { name: "Team" } });
    expect(team.id).not.toBe(user.workspaceId);
    // A password session switched to the team: full rights, acting in the team.
    const inTeam = { ...user.ctx, actor: { ...user.ctx.actor, workspaceId: team.id, workspaceRole: "owner" as const } };
    const { apiKey } = await rotateAccountKey({ ctx: inTeam, keepSessionId: 0 });
    const sys = { db: database.db, now: () => new Date() };
    expect(await authenticateApiKey(sys, user.apiKey)).toBeNull();
    expect(await authenticateApiKey(sys, apiKey)).toMatchObject({ userId: user.id, workspaceId: user.workspaceId, workspaceRole: "owner" });
  });
});

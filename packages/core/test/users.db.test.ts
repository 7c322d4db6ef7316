import { eq } from "drizzle-orm";
import { apiKeys, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateApiKey, bootstrap, createUser, deleteUser, ForbiddenError, getAccount, listUsers, NotFoundError, rotateApiKey, sha256, ValidationError } from "../src/index.ts";
import { createTestUser, openTestDb, unique } from "../src/testing/index.ts";

let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});
const sys = () => ({ db: database.db, now: () => new Date() });

describe("api keys", () => {
  it("are stored only as a SHA-256 hash: no key appears in clear in the keys table", async () => {
    const admin = await createTestUser(database.db, { role: "admin" });
    const { apiKey } = await createUser({ ctx: admin.ctx, input: { email: `${unique()}@x.test`, name: "N" } });
    const rows = await database.db.select().from(apiKeys);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      for (const value of Object.values(row)) {
        expect(String(value)).not.toContain(apiKey);
        expect(String(value)).not.toContain(admin.apiKey);
      }
    }
    expect(rows.map((r) => r.keyHash)).toContain(sha256(apiKey));
    expect(apiKey).toMatch(/^shk_[0-9A-Za-z]{40}$/);
  });

  it("authenticate finds the owner and refuses unknown, short and revoked keys", async () => {
    const user = await createTestUser(database.db);
    const found = await authenticateApiKey(sys(), user.apiKey);
    expect(found).toMatchObject({ userId: user.id, role: "user" });
    expect(await authenticateApiKey(sys(), `${user.apiKey}x`)).toBeNull();
    expect(await authenticateApiKey(sys(), "short")).toBeNull();
    if (!found) throw new Error("unreachable");
    const { apiKey: next } = await rotateApiKey({ ctx: user.ctx, keyId: found.keyId });
    expect(await authenticateApiKey(sys(), user.apiKey)).toBeNull();
    expect(await authenticateApiKey(sys(), next)).toMatchObject({ userId: user.id });
  });
});

describe("users", () => {
  it("only an admin creates, lists and deletes users", async () => {
    const user = await createTestUser(database.db);
    await expect(createUser({ ctx: user.ctx, input: { email: "a@b.test", name: "x" } })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(listUsers({ ctx: user.ctx, input: {} })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(deleteUser({ ctx: user.ctx, input: { id: user.id } })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it.each([
    [{ email: "not-an-email", name: "x" }, "email"],
    [{ email: "", name: "x" }, "email"],
    [{ name: "x" }, "email"],
    [{ email: "ok@x.test" }, "name"],
    [{ email: "ok@x.test", name: "" }, "name"],
    [{ email: "ok@x.test", name: "n".repeat(256) }, "name"],
    [{ email: ["a@x.test"], name: "x" }, "email"],
  ])("rejects %j on %s", async (input, field) => {
    const admin = await createTestUser(database.db, { role: "admin" });
    const error = await createUser({ ctx: admin.ctx, input: input as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(Object.keys((error as ValidationError).fields)).toContain(field);
  });

  it("emails are unique, case-insensitively", async () => {
    const admin = await createTestUser(database.db, { role: "admin" });
    const email = `${unique()}@x.test`;
    await createUser({ ctx: admin.ctx, input: { email, name: "A" } });
    const error = await createUser({ ctx: admin.ctx, input: { email: email.toUpperCase(), name: "B" } }).catch((e: unknown) => e);
    expect((error as ValidationError).fields).toEqual({ email: ["The email has already been taken."] });
  });

  it("deleting a user removes their keys; an admin cannot delete themself; unknown ids are not found", async () => {
    const admin = await createTestUser(database.db, { role: "admin" });
    const { user } = await createUser({ ctx: admin.ctx, input: { email: `${unique()}@x.test`, name: "A" } });
    await deleteUser({ ctx: admin.ctx, input: { id: user.id } });
    expect(await database.db.select().from(apiKeys).where(eq(apiKeys.userId, user.id))).toEqual([]);
    await expect(deleteUser({ ctx: admin.ctx, input: { id: admin.id } })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(deleteUser({ ctx: admin.ctx, input: { id: 2_000_000_000 } })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("account returns the caller", async () => {
    const user = await createTestUser(database.db);
    expect(await getAccount({ ctx: user.ctx })).toMatchObject({ id: user.id, email: user.email, role: "user" });
  });
});

describe("bootstrap", () => {
  it("creates the admin and the local domain once, even when started twice at the same time", async () => {
    const db = await openTestDb();
    try {
      const ctx = { db: db.db, now: () => new Date() };
      const key = `shk_${"k".repeat(40)}`;
      const results = await Promise.all([bootstrap(ctx, { adminApiKey: key, localDomain: "localhost:3000" }), bootstrap(ctx, { adminApiKey: key, localDomain: "localhost:3000" })]);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(await authenticateApiKey(ctx, key)).toMatchObject({ role: "admin" });
      expect(await bootstrap(ctx, { adminApiKey: undefined, localDomain: "localhost:3000" })).toEqual({ created: false });
    } finally {
      await db.close();
    }
  });
});

import { eq, sql } from "drizzle-orm";
import { auditLog, queryRows, spaces, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditChanges, completeImport, createImport, createLink, createSpace, deleteExpiredAuditEntries, listAudit, REDACTED, updateLink, withTransaction, type Ctx } from "../src/index.ts";
import { linkAuditView } from "../src/audit/audit-views.ts";
import { createTestUser, insertTestDomain, openTestDb, unique, validationFields } from "../src/testing/index.ts";

/*
 * CONTRACT §24, the audit log in core: entries commit and roll back with their change, a failed change
 * writes none, secrets never reach an entry, and the table cannot be rewritten — the trigger of migration
 * 0022 refuses UPDATE, DELETE and TRUNCATE except the retention job's delete. On PGlite and PostgreSQL.
 */

let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

/** The database's refusal of a change to the log: its message, from the driver's error under drizzle's. */
async function refusal(statement: Promise<unknown>): Promise<string> {
  const error = await statement.then(
    () => null,
    (e: unknown) => e as Error & { cause?: Error },
  );
  if (!error) throw new Error("expected the statement to be refused");
  return error.cause?.message ?? error.message;
}
const REFUSED = /^the audit log cannot be changed \((UPDATE|DELETE|TRUNCATE)\)$/;

async function entriesOf(workspaceId: number) {
  return database.db.select().from(auditLog).where(eq(auditLog.workspaceId, workspaceId)).orderBy(auditLog.id);
}

/** An entry written straight to the table (inserts are allowed), `daysAgo` old. */
async function insertEntry(workspaceId: number, daysAgo: number, now: Date) {
  const [row] = await database.db
    .insert(auditLog)
    .values({ workspaceId, action: "space.created", objectType: "space", objectId: "1", changes: {}, createdAt: new Date(now.getTime() - daysAgo * 86_400_000) })
    .returning({ id: auditLog.id });
  if (!row) throw new Error("no row");
  return row.id;
}

describe("auditChanges (which fields, secrets redacted)", () => {
  it("keeps only what changed; a create has no before, a delete no after", () => {
    expect(auditChanges({ name: "a", color: 1 }, { name: "b", color: 1 })).toEqual({ name: { before: "a", after: "b" } });
    expect(auditChanges(null, { name: "a" })).toEqual({ name: { after: "a" } });
    // A create's values as the entry holds them: undefined as null, dates as ISO text, secrets in lists redacted, in the view's order.
    const created = auditChanges(null, { gone: undefined, at: new Date(0), list: ["x", "shk_x"], nested: { password: "p", n: 1 }, password: true });
    expect(created).toEqual({
      gone: { after: null },
      at: { after: "1970-01-01T00:00:00.000Z" },
      list: { after: ["x", REDACTED] },
      nested: { after: { password: REDACTED, n: 1 } },
      password: { after: REDACTED },
    });
    expect(Object.keys(created)).toEqual(["gone", "at", "list", "nested", "password"]);
    expect(auditChanges(null, null)).toEqual({});
    expect(auditChanges({ name: "a" }, null)).toEqual({ name: { before: "a" } });
    expect(auditChanges({ a: [1, 2] }, { a: [1, 2] })).toEqual({});
  });

  it.each([
    ["a secret field set", { password: false }, { password: true }, [], { password: { before: null, after: REDACTED } }],
    ["a secret field removed", { privacy_password: true }, { privacy_password: false }, [], { privacy_password: { before: REDACTED, after: null } }],
    ["a secret replaced by another (views agree)", { password: true }, { password: true }, ["password"], { password: { before: REDACTED, after: REDACTED } }],
    ["a secret field's clear value", null, { secret: "whsec_abc", token: "t0k3n", key_hash: "ab12" }, [], { secret: { after: REDACTED }, token: { after: REDACTED }, key_hash: { after: REDACTED } }],
    ["an API key in any field", null, { note: "shk_0123456789abcdef" }, [], { note: { after: REDACTED } }],
    ["a password hash nested in a value", null, { list: [{ value: "scrypt$16384$8$1$x$y" }] }, [], { list: { after: [{ value: REDACTED }] } }],
  ])("%s", (_name, before, after, changed, expected) => {
    expect(auditChanges(before, after, changed)).toEqual(expected);
  });
});

describe("entries and their changes' transaction", () => {
  it("a change writes one entry, with the actor and the API's field names", async () => {
    const user = await createTestUser(database.db);
    const ctx: Ctx = { ...user.ctx, actor: { ...user.ctx.actor, via: { keyId: 77, sessionId: null, clientGroup: "203.0.113.9" } } };
    const space = await createSpace({ ctx, input: { name: unique("s"), color: 3 } });
    const [entry, ...more] = await entriesOf(user.workspaceId);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      actorUserId: user.id,
      actorKeyId: 77,
      actorSessionId: null,
      clientGroup: "203.0.113.9",
      action: "space.created",
      objectType: "space",
      objectId: String(space.id),
      changes: { name: { after: space.name }, color: { after: 3 } },
    });
  });

  it("the entry rolls back with its change", async () => {
    const user = await createTestUser(database.db);
    const name = unique("s");
    await expect(
      withTransaction(user.ctx, async (tx) => {
        await createSpace({ ctx: tx, input: { name } });
        throw new Error("the caller's transaction fails after the change");
      }),
    ).rejects.toThrow("fails after");
    expect(await database.db.select().from(spaces).where(eq(spaces.name, name))).toEqual([]);
    expect(await entriesOf(user.workspaceId)).toEqual([]);
  });

  it("a link's create, one statement or a transaction, writes the same entry: the id, the alias (random or chosen), the link's time", async () => {
    const user = await createTestUser(database.db);
    const ctx: Ctx = { ...user.ctx, actor: { ...user.ctx.actor, via: { keyId: null, sessionId: 31, clientGroup: "192.0.2.7" } } };
    const domain = await insertTestDomain(database.db, user.workspaceId);
    const random = await createLink({ ctx, input: { url: "https://r.example/", domain_id: domain.id, password: "hunter2" } });
    const chosen = await createLink({ ctx, input: { url: "https://c.example/", domain_id: domain.id, alias: unique("c"), title: "T" } });
    const taken = await validationFields(createLink({ ctx, input: { url: "https://t.example/", domain_id: domain.id, alias: chosen.alias } }));
    expect(taken).toHaveProperty("alias");
    const entries = await entriesOf(user.workspaceId);
    expect(entries.map((e) => [e.action, e.objectId, e.actorUserId, e.actorKeyId, e.actorSessionId, e.clientGroup, e.createdAt.getTime()])).toEqual([
      ["link.created", String(random.id), user.id, null, 31, "192.0.2.7", random.createdAt.getTime()],
      ["link.created", String(chosen.id), user.id, null, 31, "192.0.2.7", chosen.createdAt.getTime()],
    ]);
    expect(entries[0]?.changes).toMatchObject({
      alias: { after: random.alias },
      url: { after: "https://r.example/" },
      password: { after: REDACTED },
      domain_id: { after: domain.id },
      pixel_ids: { after: [] },
    });
    expect(entries[1]?.changes).toMatchObject({ alias: { after: chosen.alias }, title: { after: "T" }, password: { after: null } });
    // The same link's entry as the transaction path writes it (linkAuditView of the created link) is the same.
    expect(entries[0]?.changes).toEqual(auditChanges(null, linkAuditView(random)));
    expect(entries[1]?.changes).toEqual(auditChanges(null, linkAuditView(chosen)));
  });

  it("a failed change writes no entry (422, 404)", async () => {
    const user = await createTestUser(database.db);
    const other = await createTestUser(database.db);
    const domain = await insertTestDomain(database.db, other.workspaceId);
    const foreign = await createLink({ ctx: other.ctx, input: { url: "https://x.example/", domain_id: domain.id } });
    expect(await validationFields(createSpace({ ctx: user.ctx, input: { name: "" } }))).toHaveProperty("name");
    expect(await validationFields(createLink({ ctx: user.ctx, input: { url: "javascript:alert(1)", domain_id: domain.id } }))).toHaveProperty("url");
    await expect(updateLink({ ctx: user.ctx, id: foreign.id, input: { title: "mine now" } })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await entriesOf(user.workspaceId)).toEqual([]);
  });

  it("an import: one entry when created and one when finished with its counts (the maker, no key or request), none per row", async () => {
    const user = await createTestUser(database.db);
    const ctx: Ctx = { ...user.ctx, actor: { ...user.ctx.actor, via: { keyId: 5, sessionId: null, clientGroup: "198.51.100.1" } } };
    const { job } = await createImport({ ctx, input: { source: "url\nhttps://a.example/\nhttps://b.example/\n", total_rows: 2 } });
    await completeImport({ db: database.db, now: () => new Date() }, job.id);
    const entries = await entriesOf(user.workspaceId);
    expect(entries.map((e) => [e.action, e.objectId, e.actorUserId, e.actorKeyId, e.clientGroup])).toEqual([
      ["import.created", String(job.id), user.id, 5, "198.51.100.1"],
      ["import.finished", String(job.id), user.id, null, null],
    ]);
    expect(entries[1]?.changes).toMatchObject({ status: { before: "running", after: "completed" } });
  });

  it("the log is read by admins and owners only: a viewer or an editor is refused (FORBIDDEN)", async () => {
    const user = await createTestUser(database.db);
    for (const workspaceRole of ["viewer", "editor"] as const) {
      await expect(listAudit({ ctx: { ...user.ctx, actor: { ...user.ctx.actor, workspaceRole } }, input: {} })).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    for (const workspaceRole of ["admin", "owner"] as const) {
      expect((await listAudit({ ctx: { ...user.ctx, actor: { ...user.ctx.actor, workspaceRole } }, input: {} })).total).toBe(0);
    }
  });
});

describe("the table cannot be rewritten (the trigger of migration 0022)", () => {
  it.each([
    ["UPDATE", sql`update audit_log set action = 'link.forged'`],
    ["DELETE", sql`delete from audit_log`],
    ["TRUNCATE", sql`truncate audit_log`],
  ])("a raw %s is refused, and nothing changes", async (op, statement) => {
    const user = await createTestUser(database.db);
    await insertEntry(user.workspaceId, 0, new Date());
    const before = await entriesOf(user.workspaceId);
    expect(await refusal(database.db.execute(statement))).toMatch(REFUSED);
    expect(await entriesOf(user.workspaceId)).toEqual(before);
    expect(await refusal(database.db.execute(statement))).toContain(`(${op})`);
  });

  it("the retention flag lets a DELETE through in its own transaction only, and never an UPDATE or TRUNCATE", async () => {
    const user = await createTestUser(database.db);
    const id = await insertEntry(user.workspaceId, 0, new Date());
    const flagged = (statement: ReturnType<typeof sql>) =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('shortener.audit_retention', 'on', true)`);
        await tx.execute(statement);
      });
    expect(await refusal(flagged(sql`update audit_log set action = 'link.forged' where id = ${id}`))).toMatch(REFUSED);
    expect(await refusal(flagged(sql`truncate audit_log`))).toMatch(REFUSED);
    // The flag ended with its transaction: a delete after it is refused again.
    await flagged(sql`select 1`);
    expect(await refusal(database.db.execute(sql`delete from audit_log where id = ${id}`))).toMatch(REFUSED);
    expect((await entriesOf(user.workspaceId)).map((e) => e.id)).toEqual([id]);
  });

  it("the retention job deletes only the entries older than AUDIT_RETENTION_DAYS, in batches", async () => {
    const user = await createTestUser(database.db);
    const now = new Date("2031-05-01T12:00:00Z");
    const old = [];
    for (const days of [400, 200, 90, 31, 30.5]) old.push(await insertEntry(user.workspaceId, days, now));
    const kept = [await insertEntry(user.workspaceId, 29.9, now), await insertEntry(user.workspaceId, 1, now), await insertEntry(user.workspaceId, 0, now)];
    const [{ total } = { total: 0 }] = await queryRows<{ total: number }>(
      database.db,
      sql`select count(*)::int as total from audit_log where created_at < ${new Date(now.getTime() - 30 * 86_400_000).toISOString()}::timestamptz`,
    );
    // Batches of 2: three transactions for these five (and any older entries of other tests, none here).
    expect(await deleteExpiredAuditEntries(database.db, now, 30, 2)).toBe(total);
    expect(total).toBeGreaterThanOrEqual(old.length);
    const left = (await entriesOf(user.workspaceId)).map((e) => e.id);
    expect(left).toEqual(kept);
    expect(await deleteExpiredAuditEntries(database.db, now, 30, 2)).toBe(0);
    // And still no raw delete afterwards.
    expect(await refusal(database.db.execute(sql`delete from audit_log where id = ${kept[0] ?? 0}`))).toMatch(REFUSED);
  });
});

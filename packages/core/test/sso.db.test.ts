import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, sessions, users, workspaceMembers, workspaces, type Database } from "@shortener/db";
import { createSession, findSession, isSsoRequiredOf, oidcSubjectOf, signInWithSso, SsoRefusedError, ValidationError, type SsoIdentity } from "@shortener/core";
import { createTestUser, openTestDb, unique } from "@shortener/core/testing";

/** Single sign-on's rules in core (CONTRACT §24, docs/sso.md): who a verified identity signs in as, and where a session may act. */
let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

const ISSUER = "https://id.example.test/realms/acme";
const sys = () => ({ db: database.db, now: () => new Date() });
const identity = (overrides: Partial<SsoIdentity> = {}): SsoIdentity => ({
  issuer: ISSUER,
  subject: unique("sub-"),
  email: `${unique("p")}@example.test`,
  emailVerified: true,
  name: "Pat Doe",
  ...overrides,
});
const userCount = async () => (await database.db.select({ id: users.id }).from(users)).length;
const userRow = async (id: number) => (await database.db.select().from(users).where(eq(users.id, id)))[0];

describe("who a verified identity signs in as", () => {
  it("first time: creates the user with their personal workspace, owner of it, the subject recorded and an audit entry written", async () => {
    const who = identity({ email: `  ${unique("New")}@Example.TEST ` });
    const { userId, outcome } = await signInWithSso(sys(), who);
    expect(outcome).toBe("created");
    const user = await userRow(userId);
    expect(user).toMatchObject({ email: String(who.email).trim().toLowerCase(), name: "Pat Doe", role: "user", passwordHash: null, oidcSubject: oidcSubjectOf(ISSUER, who.subject) });
    const [personal] = await database.db.select().from(workspaces).where(eq(workspaces.personalUserId, userId));
    const [member] = await database.db.select().from(workspaceMembers).where(eq(workspaceMembers.userId, userId));
    expect(member).toMatchObject({ workspaceId: personal?.id, role: "owner" });
    const entries = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.workspaceId, personal?.id ?? 0));
    expect(entries.map((e) => e.action)).toEqual(["user.created"]);
  });

  it("again: the same user, by subject, even after the email changed at the provider", async () => {
    const who = identity();
    const first = await signInWithSso(sys(), who);
    const again = await signInWithSso(sys(), { ...who, email: `${unique("renamed")}@example.test` });
    expect(again).toEqual({ userId: first.userId, outcome: "matched" });
  });

  it("an existing user by verified email, any case: the subject is recorded (linked), nothing else changes", async () => {
    const existing = await createTestUser(database.db, { email: `${unique("Old")}@example.test` });
    const before = await userCount();
    const who = identity({ email: existing.email.toUpperCase() });
    expect(await signInWithSso(sys(), who)).toEqual({ userId: existing.id, outcome: "linked" });
    expect(await userCount()).toBe(before);
    expect((await userRow(existing.id))?.oidcSubject).toBe(oidcSubjectOf(ISSUER, who.subject));
    expect(await signInWithSso(sys(), who)).toEqual({ userId: existing.id, outcome: "matched" });
  });

  it("the same sub at another issuer is another person", async () => {
    const who = identity();
    const first = await signInWithSso(sys(), who);
    const elsewhere = await signInWithSso(sys(), { ...who, issuer: "https://other.example.test", email: `${unique("x")}@example.test` });
    expect(elsewhere.userId).not.toBe(first.userId);
    expect(elsewhere.outcome).toBe("created");
  });

  it("an email whose account is tied to another identity is refused, not taken over", async () => {
    const owner = identity();
    await signInWithSso(sys(), owner);
    const error = await signInWithSso(sys(), identity({ email: owner.email })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SsoRefusedError);
    expect((error as SsoRefusedError).reason).toBe("identity_conflict");
  });

  it("two first sign-ins of one person at once make one user", async () => {
    const who = identity();
    const [a, b] = await Promise.all([signInWithSso(sys(), who), signInWithSso(sys(), who)]);
    expect(a.userId).toBe(b.userId);
    expect(
      (
        await database.db
          .select()
          .from(users)
          .where(eq(users.oidcSubject, oidcSubjectOf(ISSUER, who.subject)))
      ).length,
    ).toBe(1);
  });

  it.each([
    ["email_verified false", { emailVerified: false }, "email_not_verified"],
    ["email_verified absent", { emailVerified: undefined }, "email_not_verified"],
    ['email_verified the string "true"', { emailVerified: "true" }, "email_not_verified"],
    ["email_verified 1", { emailVerified: 1 }, "email_not_verified"],
    ["no email", { email: undefined }, "email_missing"],
    ["an empty email", { email: "" }, "email_missing"],
  ])("refused, nothing written: %s", async (_, overrides, reason) => {
    const existing = await createTestUser(database.db);
    const before = await userCount();
    // Even with the address of an existing account: an unverified email takes over nothing.
    const error = await signInWithSso(sys(), identity({ email: existing.email, ...overrides })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SsoRefusedError);
    expect((error as SsoRefusedError).reason).toBe(reason);
    expect(await userCount()).toBe(before);
    expect((await userRow(existing.id))?.oidcSubject).toBeNull();
  });

  it.each([
    ["an email that is not one", { email: "not-an-email" }, "email"],
    ["an email of 300 characters", { email: `${"a".repeat(290)}@example.test` }, "email"],
    ["an email that is a number", { email: 42 }, "email"],
    ["an email with a NUL", { email: "a\u0000b@example.test" }, "email"],
    ["an empty sub", { subject: "" }, "sub"],
    ["a sub with a NUL", { subject: "a\u0000b" }, "sub"],
    ["a sub of 3,000 characters", { subject: "s".repeat(3_000) }, "sub"],
  ])("hostile claims are a validation error naming the claim, nothing written: %s", async (_, overrides, field) => {
    const before = await userCount();
    const error = await signInWithSso(sys(), identity(overrides as Partial<SsoIdentity>)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(Object.keys((error as ValidationError).fields)).toEqual([field]);
    expect(await userCount()).toBe(before);
  });

  it.each([
    ["name", { name: "Ada Lovelace" }, "Ada Lovelace"],
    ["preferred_username when no name", { name: undefined, preferredUsername: "ada" }, "ada"],
    ["the email's local part when neither", { name: undefined, email: "grace.h@example.test" }, "grace.h"],
    ["control and bidirectional characters become spaces", { name: "Eve\u0000\u202Egnp.exe\n" }, "Eve gnp.exe"],
    ["a name of 1,000 characters is cut to 255", { name: "n".repeat(1_000) }, "n".repeat(255)],
    ["a name that is not a string", { name: { first: "x" }, email: "obj.name@example.test" }, "obj.name"],
  ])("a new user's name: %s", async (_, overrides, name) => {
    const email = (overrides as { email?: string }).email ? `${unique("")}${String((overrides as { email: string }).email)}` : undefined;
    const who = identity({ ...overrides, ...(email ? { email } : {}) } as Partial<SsoIdentity>);
    const { userId } = await signInWithSso(sys(), who);
    const expected = email ? email.split("@")[0] : name;
    expect((await userRow(userId))?.name).toBe(expected);
  });
});

describe("a workspace that requires single sign-on", () => {
  async function teamRequiringSso(memberIds: number[]) {
    const [team] = await database.db
      .insert(workspaces)
      .values({ name: unique("team"), requireSso: true })
      .returning({ id: workspaces.id });
    if (!team) throw new Error("no workspace");
    for (const userId of memberIds) await database.db.insert(workspaceMembers).values({ workspaceId: team.id, userId, role: "editor" });
    return team.id;
  }

  it("is required of its members, not of others, and never of the instance admin", async () => {
    const member = await createTestUser(database.db);
    const outsider = await createTestUser(database.db);
    const admin = await createTestUser(database.db, { role: "admin" });
    await teamRequiringSso([member.id, admin.id]);
    expect(await isSsoRequiredOf(sys(), member.id)).toBe(true);
    expect(await isSsoRequiredOf(sys(), outsider.id)).toBe(false);
    expect(await isSsoRequiredOf(sys(), admin.id)).toBe(false);
  });

  it("a session without SSO switched there acts in the personal workspace instead; an SSO session acts there; the admin's does too", async () => {
    const member = await createTestUser(database.db);
    const admin = await createTestUser(database.db, { role: "admin" });
    const teamId = await teamRequiringSso([member.id, admin.id]);
    const open = async (userId: number, isSso: boolean) => {
      const { token } = await createSession(sys(), userId, "Agent/1", null, { isSso });
      await database.db.update(sessions).set({ workspaceId: teamId }).where(eq(sessions.userId, userId));
      return findSession(sys(), token);
    };
    expect(await open(member.id, false)).toMatchObject({ workspaceId: member.workspaceId, workspaceRole: "owner", isSso: false });
    await database.db.delete(sessions).where(eq(sessions.userId, member.id));
    expect(await open(member.id, true)).toMatchObject({ workspaceId: teamId, workspaceRole: "editor", isSso: true });
    expect(await open(admin.id, false)).toMatchObject({ workspaceId: teamId, workspaceRole: "editor", isSso: false });
  });

  it("turned on after a password session was opened there: the next request of that session acts in the personal workspace", async () => {
    const member = await createTestUser(database.db);
    const [team] = await database.db
      .insert(workspaces)
      .values({ name: unique("team") })
      .returning({ id: workspaces.id });
    await database.db.insert(workspaceMembers).values({ workspaceId: team?.id ?? 0, userId: member.id, role: "admin" });
    const { token } = await createSession(sys(), member.id, "Agent/1");
    await database.db
      .update(sessions)
      .set({ workspaceId: team?.id ?? 0 })
      .where(eq(sessions.userId, member.id));
    expect((await findSession(sys(), token))?.workspaceId).toBe(team?.id);
    await database.db
      .update(workspaces)
      .set({ requireSso: true })
      .where(eq(workspaces.id, team?.id ?? 0));
    expect((await findSession(sys(), token))?.workspaceId).toBe(member.workspaceId);
  });
});

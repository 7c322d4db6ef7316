import { count, eq } from "drizzle-orm";
import { users, workspaceInvitations, workspaceMembers, workspaces } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "./helpers.ts";
import { cookieOf, createTeam, injectJson, type Team } from "./teams.ts";

/**
 * CONTRACT §24 through the API: workspaces, members, invitations, the rules on owners, switching a
 * dashboard session, and hostile input — each refusal a 4xx naming the problem, nothing half-written.
 */
let api: TestApi;
/** The app's clock: tests move it past an invitation's 7 days. */
let clock = new Date("2026-11-27T10:00:00.000Z");
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  // Single sign-on configured (never reached: no test here signs in through it), so workspaces may require it.
  api = await createTestApi({ publicUrl: "https://short.example", oidc: { issuer: "http://127.0.0.1:9/", clientId: "shortener", clientSecret: "s3cret" } }, { now: () => clock });
});
afterAll(async () => {
  await api?.close();
});

async function invite(team: Team, form: Record<string, string>, by = team.owner.key) {
  const res = await api.call(by, "POST", `/api/v1/workspaces/${team.id}/invitations`, form);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: number; token: string; url: string; mailed: boolean };
}

async function rows(table: typeof workspaces | typeof workspaceMembers | typeof workspaceInvitations | typeof users) {
  const [row] = await api.database.db.select({ n: count() }).from(table);
  return row?.n ?? 0;
}

describe("workspaces", () => {
  it("the creator is the owner; the list has the personal workspace first, each with the caller's role; /account names the key's workspace", async () => {
    const user = await api.user();
    const created = await api.call(user, "POST", "/api/v1/workspaces", { name: "  Marketing  " });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: "Marketing", personal: false, require_sso: false, role: "owner" });
    const list = await api.call(user, "GET", "/api/v1/workspaces");
    expect(list.body.data.map((w: { name: string; personal: boolean; role: string }) => [w.name, w.personal, w.role])).toEqual([
      ["Test User", true, "owner"],
      ["Marketing", false, "owner"],
    ]);
    const account = await api.call(user, "GET", "/api/v1/account");
    expect(account.body.data.workspace).toMatchObject({ name: "Test User", personal: true, role: "owner" });
    // The personal key acts in the personal workspace: the new one, though the user owns it, is a 404 to it.
    expect((await api.call(user, "GET", `/api/v1/workspaces/${created.body.data.id}`)).status).toBe(404);
  });

  it("members see each other; a key acts in its workspace with its maker's role there", async () => {
    const team = await createTeam(api);
    const members = await api.call(team.viewer.key, "GET", `/api/v1/workspaces/${team.id}/members`);
    expect(members.status).toBe(200);
    expect(members.body.data.map((m: { id: number; role: string }) => [m.id, m.role])).toEqual([
      [team.owner.id, "owner"],
      [team.admin.id, "admin"],
      [team.editor.id, "editor"],
      [team.viewer.id, "viewer"],
    ]);
    const account = await api.call(team.editor.key, "GET", "/api/v1/account");
    expect(account.body.data.workspace).toMatchObject({ id: team.id, role: "editor", personal: false });
  });

  it("an admin renames it and sets require_sso; a viewer gets 403 naming the role; the owner alone deletes it, and its keys stop working", async () => {
    const team = await createTeam(api);
    const refused = await api.call(team.viewer.key, "PATCH", `/api/v1/workspaces/${team.id}`, { name: "x" });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: "forbidden", status: 403, message: "This needs the admin role in this workspace; you are a viewer." });
    const renamed = await api.call(team.admin.key, "PATCH", `/api/v1/workspaces/${team.id}`, { name: "Renamed", require_sso: "1" });
    expect(renamed.body.data).toMatchObject({ name: "Renamed", require_sso: true, role: "admin" });
    const byAdmin = await api.call(team.admin.key, "DELETE", `/api/v1/workspaces/${team.id}`);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.message).toBe("This needs the owner role in this workspace; you are an admin.");
    const deleted = await api.call(team.owner.key, "DELETE", `/api/v1/workspaces/${team.id}`);
    expect(deleted.body).toEqual({ id: team.id, object: "workspace", deleted: true, status: 200 });
    expect((await api.call(team.editor.key, "GET", "/api/v1/links")).status).toBe(401);
    expect((await api.call(team.editor.personalKey, "GET", "/api/v1/links")).status).toBe(200);
  });

  it("a personal workspace is deleted only with its user: 409, nothing deleted", async () => {
    const user = await api.user();
    const res = await api.call(user, "DELETE", `/api/v1/workspaces/${user.workspaceId}`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: "conflict", status: 409, message: "A personal workspace is deleted only with its user." });
    expect((await api.call(user, "GET", "/api/v1/account")).status).toBe(200);
  });
});

describe("members and owners", () => {
  it("the last owner can neither be demoted nor leave (409); handing over makes another owner, then the first may step down", async () => {
    const team = await createTeam(api);
    const demote = await api.call(team.owner.key, "PATCH", `/api/v1/workspaces/${team.id}/members/${team.owner.id}`, { role: "admin" });
    expect(demote.status).toBe(409);
    expect(demote.body.message).toBe("The last owner cannot be demoted: make another member owner first.");
    const leave = await api.call(team.owner.key, "POST", `/api/v1/workspaces/${team.id}/leave`);
    expect(leave.status).toBe(409);
    expect(leave.body.message).toBe("The last owner cannot leave the workspace: make another member owner first, or delete the workspace.");
    // An admin cannot hand the workspace over: making an owner is the owners'.
    const byAdmin = await api.call(team.admin.key, "PATCH", `/api/v1/workspaces/${team.id}/members/${team.editor.id}`, { role: "owner" });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.message).toMatch(/^This needs the owner role in this workspace/);
    const handOver = await api.call(team.owner.key, "PATCH", `/api/v1/workspaces/${team.id}/members/${team.admin.id}`, { role: "owner" });
    expect(handOver.body.data).toMatchObject({ id: team.admin.id, role: "owner" });
    const stepDown = await api.call(team.owner.key, "PATCH", `/api/v1/workspaces/${team.id}/members/${team.owner.id}`, { role: "viewer" });
    expect(stepDown.body.data).toMatchObject({ id: team.owner.id, role: "viewer" });
    // The first owner's key now carries viewer at once (the key caches dropped).
    expect((await api.call(team.owner.key, "POST", "/api/v1/spaces", { name: "s" })).status).toBe(403);
  });

  it("an admin removes an editor, whose key of the workspace then fails; anyone leaves; the personal owner never goes", async () => {
    const team = await createTeam(api);
    const removed = await api.call(team.admin.key, "DELETE", `/api/v1/workspaces/${team.id}/members/${team.editor.id}`);
    expect(removed.body).toEqual({ id: team.editor.id, object: "member", deleted: true, status: 200 });
    expect((await api.call(team.editor.key, "GET", "/api/v1/links")).status).toBe(401);
    const left = await api.call(team.viewer.key, "POST", `/api/v1/workspaces/${team.id}/leave`);
    expect(left.status).toBe(200);
    const admin = await api.call(team.admin.key, "DELETE", `/api/v1/workspaces/${team.id}/members/${team.owner.id}`);
    expect(admin.status).toBe(403);
    const user = await api.user();
    const personal = await api.call(user, "POST", `/api/v1/workspaces/${user.workspaceId}/leave`);
    expect(personal.status).toBe(409);
    expect(personal.body.message).toMatch(/personal workspace's own user is always its owner/);
  });

  it("changing an unknown member is a 404; unknown roles are a 422 naming the role", async () => {
    const team = await createTeam(api);
    const stranger = await api.user();
    expect((await api.call(team.owner.key, "PATCH", `/api/v1/workspaces/${team.id}/members/${stranger.id}`, { role: "viewer" })).status).toBe(404);
    const bad = await api.call(team.owner.key, "PATCH", `/api/v1/workspaces/${team.id}/members/${team.viewer.id}`, { role: "superuser" });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toEqual({ role: ['The role "superuser" is not one of viewer, editor, admin, owner.'] });
  });
});

describe("invitations", () => {
  it("the token and link are shown once; the list never shows a token; accepting makes a member; a reused link is refused", async () => {
    const team = await createTeam(api);
    const invitation = await invite(team, { role: "editor" });
    expect(invitation.url).toBe(`https://short.example/app/invite/${invitation.token}`);
    expect(invitation.mailed).toBe(false);
    const stored = await api.database.db.select().from(workspaceInvitations).where(eq(workspaceInvitations.id, invitation.id));
    expect(JSON.stringify(stored)).not.toContain(invitation.token);
    const list = await api.call(team.admin.key, "GET", `/api/v1/workspaces/${team.id}/invitations`);
    expect(JSON.stringify(list.body)).not.toContain(invitation.token);
    expect(list.body.data[0]).toMatchObject({ id: invitation.id, role: "editor", status: "pending" });
    const joiner = await api.user();
    const accepted = await api.call(joiner, "POST", "/api/v1/invitations/accept", { token: invitation.token });
    expect(accepted.body.data).toMatchObject({ id: team.id, role: "editor" });
    const again = await api.call(await api.user(), "POST", "/api/v1/invitations/accept", { token: invitation.token });
    expect(again.status).toBe(422);
    expect(again.body.message).toEqual({ token: ["The invitation has already been used."] });
    const listed = await api.call(team.admin.key, "GET", `/api/v1/workspaces/${team.id}/invitations`);
    expect(listed.body.data[0]).toMatchObject({ status: "accepted", accepted_by: joiner.id });
  });

  it("expired, revoked and unknown invitations, inviting a member, joining twice and roles above one's own: 4xx naming the problem, nothing written", async () => {
    const team = await createTeam(api);
    const expiring = await invite(team, { role: "viewer" });
    const revoked = await invite(team, { role: "viewer" });
    expect((await api.call(team.admin.key, "DELETE", `/api/v1/workspaces/${team.id}/invitations/${revoked.id}`)).body).toMatchObject({ object: "invitation", deleted: true });
    const pending = await invite(team, { role: "viewer" });
    const joiner = await api.user();
    const before = { members: await rows(workspaceMembers), invitations: await rows(workspaceInvitations) };
    const cases: Array<[string, string, Record<string, string>, number, unknown]> = [
      ["revoked", "/api/v1/invitations/accept", { token: revoked.token }, 422, { token: ["The invitation is unknown or was revoked."] }],
      ["unknown", "/api/v1/invitations/accept", { token: "A".repeat(43) }, 422, { token: ["The invitation is unknown or was revoked."] }],
      ["over-long token", "/api/v1/invitations/accept", { token: "A".repeat(500) }, 422, { token: ["The invitation is unknown or was revoked."] }],
      ["no token", "/api/v1/invitations/accept", {}, 422, { token: ["The token field is required."] }],
      [
        "a member's email",
        `/api/v1/workspaces/${team.id}/invitations`,
        { role: "viewer", email: team.viewer.email.toUpperCase() },
        422,
        { email: [`${team.viewer.email} is already a member of this workspace.`] },
      ],
      ["an unknown role", `/api/v1/workspaces/${team.id}/invitations`, { role: "root" }, 422, { role: ['The role "root" is not one of viewer, editor, admin, owner.'] }],
      ["a bad email", `/api/v1/workspaces/${team.id}/invitations`, { role: "viewer", email: "not-an-email" }, 422, { email: ["The email must be a valid email address."] }],
    ];
    for (const [label, url, form, status, message] of cases) {
      const res = await api.call(url.includes("/invitations/accept") ? joiner : team.owner.key, "POST", url, form);
      expect([label, res.status, res.body.message]).toEqual([label, status, message]);
    }
    const aboveOwn = await api.call(team.admin.key, "POST", `/api/v1/workspaces/${team.id}/invitations`, { role: "owner" });
    expect(aboveOwn.body.message).toEqual({ role: ["The role must not be above your own (admin)."] });
    const twice = await api.call(team.viewer.personalKey, "POST", "/api/v1/invitations/accept", { token: pending.token });
    expect(twice.status).toBe(409);
    expect(twice.body.message).toBe("You are already a member of this workspace.");
    clock = new Date(clock.getTime() + 7 * DAY + 1000);
    try {
      const late = await api.call(joiner, "POST", "/api/v1/invitations/accept", { token: expiring.token });
      expect(late.body.message).toEqual({ token: ["The invitation has expired."] });
    } finally {
      clock = new Date(clock.getTime() - 7 * DAY - 1000);
    }
    expect({ members: await rows(workspaceMembers), invitations: await rows(workspaceInvitations) }).toEqual(before);
  });

  it("a new person accepts through the public route: their user, the membership and a session acting in the workspace, in one go", async () => {
    const team = await createTeam(api);
    const invitation = await invite(team, { role: "editor", email: "newcomer@example.test" });
    const preview = await injectJson(api, "POST", "/app/invitations/preview", { json: { token: invitation.token } });
    expect(preview.body.data).toMatchObject({ workspace: { id: team.id, name: team.name }, role: "editor", email: "newcomer@example.test" });
    const usersBefore = await rows(users);
    const hostile: Array<[string, Record<string, unknown>, string]> = [
      ["a NUL in the name", { name: "New\u0000comer" }, "name"],
      ["an over-long name", { name: "n".repeat(256) }, "name"],
      ["a bidi override in the name", { name: "\u202Egnp.exe" }, "name"],
      ["a short password", { password: "short" }, "password"],
      ["a taken email", { email: team.viewer.email }, "email"],
      ["a bad email", { email: "nobody" }, "email"],
    ];
    for (const [label, change, field] of hostile) {
      const res = await injectJson(api, "POST", "/app/invitations/accept", {
        json: { token: invitation.token, name: "Newcomer", email: "newcomer@example.test", password: "a long enough password", ...change },
      });
      expect([label, res.status, Object.keys(res.body.message ?? {})]).toEqual([label, 422, [field]]);
    }
    expect(await rows(users)).toBe(usersBefore);
    const joined = await injectJson(api, "POST", "/app/invitations/accept", {
      json: { token: invitation.token, name: "Newcomer", email: "Newcomer@Example.test", password: "a long enough password" },
    });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    expect(joined.body.data).toMatchObject({ name: "Newcomer", email: "newcomer@example.test", has_password: true, workspace: { id: team.id, role: "editor" } });
    const cookie = cookieOf(joined);
    const current = await injectJson(api, "GET", "/trpc/workspaces.current", { cookie });
    expect(current.body.result.data).toMatchObject({ id: team.id, role: "editor" });
    const reused = await injectJson(api, "POST", "/app/invitations/accept", { json: { token: invitation.token, name: "Other", email: "other@example.test", password: "a long enough password" } });
    expect(reused.body.message).toEqual({ token: ["The invitation has already been used."] });
  });
});

describe("switching a dashboard session", () => {
  async function newcomerSession(team: Team) {
    const invitation = await invite(team, { role: "viewer" });
    const email = `n${Math.random().toString(36).slice(2, 8)}@example.test`;
    const joined = await injectJson(api, "POST", "/app/invitations/accept", { json: { token: invitation.token, name: "Switcher", email, password: "a long enough password" } });
    expect(joined.status).toBe(200);
    return { cookie: cookieOf(joined), csrf: joined.body.data.csrf_token as string };
  }

  it("switches between the user's workspaces; another's is NOT_FOUND; a required-SSO workspace refuses a password session with sso_required", async () => {
    const team = await createTeam(api);
    const session = await newcomerSession(team);
    const list = await injectJson(api, "GET", `/trpc/workspaces.list?input=${encodeURIComponent("{}")}`, session);
    const personal = list.body.result.data.data.find((w: { personal: boolean }) => w.personal);
    const toPersonal = await injectJson(api, "POST", "/trpc/workspaces.switch", { ...session, json: { id: personal.id } });
    expect(toPersonal.body.result.data).toMatchObject({ id: personal.id, role: "owner" });
    expect((await injectJson(api, "GET", "/trpc/workspaces.current", session)).body.result.data.id).toBe(personal.id);
    const other = await createTeam(api);
    const foreign = await injectJson(api, "POST", "/trpc/workspaces.switch", { ...session, json: { id: other.id } });
    expect(foreign.body.error.data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404 });
    await api.call(team.admin.key, "PATCH", `/api/v1/workspaces/${team.id}`, { require_sso: "true" });
    const sso = await injectJson(api, "POST", "/trpc/workspaces.switch", { ...session, json: { id: team.id } });
    expect(sso.status).toBe(403);
    expect(sso.body.error.data).toMatchObject({ code: "FORBIDDEN", slug: "sso_required" });
    expect(sso.body.error.message).toMatch(/requires single sign-on/);
    // Still where it was.
    expect((await injectJson(api, "GET", "/trpc/workspaces.current", session)).body.result.data.id).toBe(personal.id);
  });

  it("a bearer key cannot switch: it acts in its own workspace", async () => {
    const team = await createTeam(api);
    const res = await injectJson(api, "POST", "/trpc/workspaces.switch", { key: team.viewer.key, json: { id: team.id } });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe("An API key acts in its own workspace: only a dashboard session switches workspaces.");
  });
});

describe("require_sso where single sign-on is not configured", () => {
  it("is refused naming require_sso (REST 422, tRPC BAD_REQUEST), and nothing changes; turning it off is fine", async () => {
    const plain = await createTestApi({ publicUrl: "https://short.example" });
    try {
      const team = await createTeam(plain);
      const rest = await plain.call(team.admin.key, "PATCH", `/api/v1/workspaces/${team.id}`, { name: "Kept?", require_sso: "1" });
      expect(rest.status).toBe(422);
      expect(rest.body.message).toEqual({ require_sso: [expect.stringMatching(/^Single sign-on is not configured on this service/)] });
      const trpc = await injectJson(plain, "POST", "/trpc/workspaces.update", { key: team.admin.key, json: { id: team.id, require_sso: true } });
      expect(trpc.body.error.data).toMatchObject({ code: "BAD_REQUEST", slug: "validation_failed", fieldErrors: { require_sso: [expect.stringMatching(/^Single sign-on is not configured/)] } });
      const [row] = await plain.database.db.select().from(workspaces).where(eq(workspaces.id, team.id));
      expect(row).toMatchObject({ requireSso: false });
      expect(row?.name).not.toBe("Kept?");
      const off = await plain.call(team.admin.key, "PATCH", `/api/v1/workspaces/${team.id}`, { require_sso: "0" });
      expect(off.body.data).toMatchObject({ require_sso: false });
    } finally {
      await plain.close();
    }
  });
});

describe("hostile workspace names: 422 naming the field, nothing written", () => {
  const cases: Array<[string, unknown, string]> = [
    ["missing", undefined, "The name field is required."],
    ["blank", "   ", "The name field is required."],
    ["NUL", "a\u0000b", "The name field must not contain a NUL character (U+0000)."],
    ["over-long", "w".repeat(101), "The name must not be greater than 100 characters."],
    ["a newline", "a\nb", "The name must not contain control characters or bidirectional override characters."],
    ["a bidi override", "\u202Eevil", "The name must not contain control characters or bidirectional override characters."],
    ["an object", { a: 1 }, "The name must be a string."],
  ];
  it.each(cases)("%s", async (_label, name, message) => {
    const user = await api.user();
    const before = await rows(workspaces);
    const res = await injectJson(api, "POST", "/api/v1/workspaces", { key: user.apiKey, json: name === undefined ? {} : { name } });
    expect(res.status).toBe(422);
    expect(res.body.message.name?.[0] ?? res.body.message).toBe(message);
    expect(await rows(workspaces)).toBe(before);
  });
});

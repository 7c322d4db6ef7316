import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword, insertUserWithWorkspace, issueApiKey, oidcSubjectOf } from "@shortener/core";
import { sessions, users, workspaceMembers, workspaces } from "@shortener/db";
import { freePort } from "@shortener/db/testing";
import { startTestServer, type TestServer } from "./helpers.ts";
import { CLIENT_ID, CLIENT_SECRET, createAgent, startTestProvider, walkToCallback, type TestAccount, type TestProvider } from "./oidc.ts";

/**
 * Single sign-on over HTTP (CONTRACT §24, docs/sso.md): the whole service against a real OpenID provider
 * (oidc-provider) on 127.0.0.1, walked with fetch and a cookie jar. The edge cases live here — no
 * configuration, a wrong or missing state, a replayed callback, a forged cookie, the provider down or
 * refusing, hostile callback queries — and each is a 4xx (502 when the provider cannot be reached),
 * never a 500 and never a session. `sso.browser.test.ts` walks the same flows in Chromium.
 */
const ADMIN_KEY = `shk_${"S".repeat(40)}`;
const PASSWORD = "a password of ours";
const run = Math.random().toString(36).slice(2, 8);
const account = (login: string, isEmailVerified = true): TestAccount => ({ login: `${login}-${run}`, email: `${login}-${run}@example.test`, isEmailVerified, name: `${login} ${run}` });
const NEWCOMER = account("newcomer");
const EXISTING = account("existing");
const UNVERIFIED = account("unverified", false);
const MEMBER = account("member");
const REPLAYED = account("replayed");
const LATE = account("late");
const ACCOUNTS = [NEWCOMER, EXISTING, UNVERIFIED, MEMBER, REPLAYED, LATE];

let server: TestServer;
let plain: TestServer;
let provider: TestProvider;
const db = () => server.database.db;
const start = () => `${server.base}/app/session/sso`;
const callback = () => `${server.base}/app/session/sso/callback`;

beforeAll(async () => {
  const providerPort = await freePort();
  // The service first: it discovers the provider on the first sign-in, not at start.
  server = await startTestServer({
    ADMIN_API_KEY: ADMIN_KEY,
    OIDC_ISSUER: `http://127.0.0.1:${providerPort}`,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET: CLIENT_SECRET,
    RATE_LIMIT_PER_MINUTE: "100000",
  });
  provider = await startTestProvider({ port: providerPort, redirectUris: [callback()], accounts: ACCOUNTS });
  plain = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY });
}, 120_000);

afterAll(async () => {
  await provider?.close();
  await server?.close();
  await plain?.close();
});

const userByEmail = async (email: string) => (await db().select().from(users).where(eq(users.email, email)))[0];
const userCount = async () => (await db().select({ id: users.id }).from(users)).length;
const sessionCount = async () => (await db().select({ id: sessions.id }).from(sessions)).length;

/** auth.me through tRPC with a session cookie. */
async function me(cookie: string): Promise<{ status: number; data?: { email: string; is_sso: boolean; has_password: boolean } }> {
  const res = await fetch(`${server.base}/trpc/auth.me`, { headers: { cookie } });
  const body = (await res.json()) as { result?: { data: { email: string; is_sso: boolean; has_password: boolean } } };
  return { status: res.status, ...(body.result ? { data: body.result.data } : {}) };
}

/** The state a started sign-in keeps in its cookie (the agent's jar). */
function pendingStateOf(agent: { jar: Map<string, string> }): string {
  const payload = agent.jar.get("shortener_sso")?.split(".")[0] ?? "";
  return (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { state: string }).state;
}

/** The error body of a refusal, asked for as JSON. */
async function refusal(res: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await res.json()) as { code: string; message: string };
  return { status: res.status, code: body.code, message: body.message };
}

async function passwordSignIn(base: string, email: string, password: string) {
  const res = await fetch(`${base}/app/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
  return {
    status: res.status,
    body: (await res.json()) as { code?: string; message?: string; data?: { email: string } },
    cookie: res.headers
      .getSetCookie()
      .find((c) => c.startsWith("shortener_session="))
      ?.split(";")[0],
  };
}

describe("which sign-ins the service offers", () => {
  it("GET /app/session/providers: sso when OIDC_* are set, not otherwise; public, not cached", async () => {
    const on = await fetch(`${server.base}/app/session/providers`);
    expect(on.status).toBe(200);
    expect(on.headers.get("cache-control")).toBe("no-store");
    expect(await on.json()).toEqual({ data: { password: true, sso: true }, status: 200 });
    expect(await (await fetch(`${plain.base}/app/session/providers`)).json()).toEqual({ data: { password: true, sso: false }, status: 200 });
  });

  it("without OIDC_*, the start and the callback are 404 sso_not_configured, a page for browsers", async () => {
    for (const path of ["/app/session/sso", "/app/session/sso/callback?code=x&state=y"]) {
      expect(await refusal(await fetch(`${plain.base}${path}`, { headers: { accept: "application/json" } }))).toMatchObject({ status: 404, code: "sso_not_configured" });
      const page = await fetch(`${plain.base}${path}`, { headers: { accept: "text/html" } });
      expect(page.status).toBe(404);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await page.text()).toContain("Single sign-on is not set up");
    }
  });
});

describe("a sign-in", () => {
  it("the start redirects to the provider with PKCE (S256), state and nonce, and keeps them in a signed HttpOnly cookie on the callback's path", async () => {
    const agent = createAgent();
    const res = await agent.request(start());
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get("location") ?? "");
    expect(to.origin).toBe(provider.issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({ client_id: CLIENT_ID, response_type: "code", redirect_uri: callback(), scope: "openid email profile", code_challenge_method: "S256" });
    for (const param of ["state", "nonce", "code_challenge"]) expect(to.searchParams.get(param)?.length).toBeGreaterThanOrEqual(43);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("shortener_sso="));
    expect(cookie).toMatch(/; Path=\/app\/session\/sso; Max-Age=600; HttpOnly; SameSite=Lax$/);
    // The verifier is not in the provider's URL.
    expect(to.href).not.toContain(JSON.parse(Buffer.from(agent.jar.get("shortener_sso")?.split(".")[0] ?? "", "base64url").toString()).verifier);
  });

  it("first time: creates the user and their personal workspace, opens an SSO session, lands on the dashboard; no password needed", async () => {
    const before = await userCount();
    const agent = createAgent();
    const res = await agent.request(await walkToCallback(agent, start(), NEWCOMER.login));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app/");
    expect(agent.jar.has("shortener_sso")).toBe(false);
    const user = await userByEmail(NEWCOMER.email);
    expect(user).toMatchObject({ name: NEWCOMER.name, role: "user", passwordHash: null, oidcSubject: oidcSubjectOf(provider.issuer, NEWCOMER.login) });
    expect(await userCount()).toBe(before + 1);
    expect(
      (
        await db()
          .select()
          .from(workspaces)
          .where(eq(workspaces.personalUserId, user?.id ?? 0))
      ).length,
    ).toBe(1);
    const session = await me(`shortener_session=${agent.jar.get("shortener_session")}`);
    expect(session).toEqual({ status: 200, data: expect.objectContaining({ email: NEWCOMER.email, is_sso: true, has_password: false }) });
    expect(
      (
        await db()
          .select()
          .from(sessions)
          .where(eq(sessions.userId, user?.id ?? 0))
      )[0]?.isSso,
    ).toBe(true);
  });

  it("an existing user by verified email: the same account, its subject recorded; no user created", async () => {
    const existing = await insertUserWithWorkspace(db(), { email: EXISTING.email, name: "Existing Before SSO", passwordHash: await hashPassword(PASSWORD) });
    const before = await userCount();
    const agent = createAgent();
    expect((await agent.request(await walkToCallback(agent, start(), EXISTING.login))).status).toBe(303);
    expect(await userCount()).toBe(before);
    expect(await userByEmail(EXISTING.email)).toMatchObject({ id: existing.id, name: "Existing Before SSO", oidcSubject: oidcSubjectOf(provider.issuer, EXISTING.login) });
    expect((await me(`shortener_session=${agent.jar.get("shortener_session")}`)).data).toMatchObject({ email: EXISTING.email, is_sso: true, has_password: true });
  });

  it("an unverified email is refused with 403 email_not_verified: no user, no session", async () => {
    const [users0, sessions0] = [await userCount(), await sessionCount()];
    const agent = createAgent();
    const url = await walkToCallback(agent, start(), UNVERIFIED.login);
    const res = await agent.request(url, { headers: { accept: "application/json" } });
    expect(await refusal(res)).toEqual({ status: 403, code: "email_not_verified", message: expect.stringContaining("not verified") });
    expect(agent.jar.has("shortener_session")).toBe(false);
    expect(agent.jar.has("shortener_sso")).toBe(false);
    expect([await userCount(), await sessionCount()]).toEqual([users0, sessions0]);
    expect(await userByEmail(UNVERIFIED.email)).toBeUndefined();
  });

  it("the person cancels at the provider: 400 sso_refused_by_provider (access_denied), no session", async () => {
    const sessions0 = await sessionCount();
    const agent = createAgent();
    const url = await walkToCallback(agent, start(), NEWCOMER.login, { abort: true });
    expect(new URL(url).searchParams.get("error")).toBe("access_denied");
    const res = await agent.request(url, { headers: { accept: "application/json" } });
    expect(await refusal(res)).toEqual({ status: 400, code: "sso_refused_by_provider", message: "The identity provider refused the sign-in (access_denied)." });
    expect(await sessionCount()).toBe(sessions0);
  });
});

describe("callbacks that must not sign anyone in", () => {
  it("a replayed callback: without the (cleared) cookie 400 sso_not_started; with a kept copy of it, 400 sso_failed (the provider refuses the used code); one session only", async () => {
    const agent = createAgent();
    const url = await walkToCallback(agent, start(), REPLAYED.login);
    const kept = agent.jar.get("shortener_sso");
    expect((await agent.request(url)).status).toBe(303);
    const user = await userByEmail(REPLAYED.email);
    const sessionsOf = async () =>
      (
        await db()
          .select()
          .from(sessions)
          .where(eq(sessions.userId, user?.id ?? 0))
      ).length;
    expect(await sessionsOf()).toBe(1);
    expect(await refusal(await agent.request(url, { headers: { accept: "application/json" } }))).toMatchObject({ status: 400, code: "sso_not_started" });
    const attacker = createAgent();
    attacker.jar.set("shortener_sso", kept ?? "");
    const replay = await refusal(await attacker.request(url, { headers: { accept: "application/json" } }));
    expect(replay).toMatchObject({ status: 400, code: "sso_failed" });
    expect(replay.message).toContain("invalid_grant");
    expect(attacker.jar.has("shortener_session")).toBe(false);
    expect(await sessionsOf()).toBe(1);
  });

  it("a callback whose state is not the cookie's: 400 sso_state_mismatch, the code never exchanged (it still works after)", async () => {
    const agent = createAgent();
    const url = new URL(await walkToCallback(agent, start(), LATE.login));
    const kept = agent.jar.get("shortener_sso") ?? "";
    const wrong = new URL(url);
    wrong.searchParams.set("state", "x".repeat(43));
    expect(await refusal(await agent.request(wrong.href, { headers: { accept: "application/json" } }))).toMatchObject({ status: 400, code: "sso_state_mismatch" });
    expect(agent.jar.has("shortener_session")).toBe(false);
    // The code was not spent on the wrong state: the right callback, with the cookie, still signs in.
    agent.jar.set("shortener_sso", kept);
    expect((await agent.request(url.href)).status).toBe(303);
    expect(agent.jar.has("shortener_session")).toBe(true);
  });

  it.each([
    ["no cookie at all", () => ({ cookie: undefined as string | undefined }), "sso_not_started"],
    ["a forged cookie (payload changed, signature kept)", (kept: string) => ({ cookie: `Z${kept.slice(1)}` }), "sso_not_started"],
    ["a cookie signed with another secret", (kept: string) => ({ cookie: `${kept.split(".")[0]}.${"A".repeat(43)}` }), "sso_not_started"],
    ["a cookie of 5,000 characters", () => ({ cookie: "a".repeat(5_000) }), "sso_not_started"],
    ["a cookie that is not base64 JSON", () => ({ cookie: "%%%.%%%" }), "sso_not_started"],
  ])("%s: 400, no session", async (_, cookieOf, code) => {
    const agent = createAgent();
    const url = await walkToCallback(agent, start(), LATE.login);
    const { cookie } = cookieOf(agent.jar.get("shortener_sso") ?? "");
    const res = await fetch(url, { redirect: "manual", headers: { accept: "application/json", ...(cookie ? { cookie: `shortener_sso=${cookie}` } : {}) } });
    expect(await refusal(res)).toMatchObject({ status: 400, code });
    expect(res.headers.getSetCookie().some((c) => c.startsWith("shortener_session="))).toBe(false);
  });

  it.each([
    ["no query", "", "sso_state_mismatch"],
    ["no state", "?code=abc", "sso_state_mismatch"],
    ["an empty state", "?code=abc&state=", "sso_state_mismatch"],
    ["another state first", "?code=abc&state=a&state={state}", "sso_state_mismatch"],
    ["a state of 10,000 characters", `?code=abc&state=${"s".repeat(10_000)}`, "sso_state_mismatch"],
    ["broken percent-encoding", "?code=%E0%A4%A&state=%", "sso_state_mismatch"],
    ["the right state twice", "?code=abc&state={state}&state={state}", "sso_failed"],
    ["the right state and no code", "?state={state}", "sso_failed"],
    ["a code that is not one", "?code=not-a-code&state={state}", "sso_failed"],
    ["a NUL in the code", "?code=a%00b&state={state}", "sso_failed"],
    ["a code of 10,000 characters", `?code=${"c".repeat(10_000)}&state={state}`, "sso_failed"],
    ["another issuer (iss)", "?code=abc&state={state}&iss=https%3A%2F%2Fevil.example", "sso_failed"],
    ["an error without the provider's iss (RFC 9207)", "?error=access_denied&state={state}", "sso_failed"],
    ["an error with a hostile description", "?error=server_error&error_description=%00%0A%3Cb%3E&state={state}&iss={iss}", "sso_refused_by_provider"],
  ])("hostile callback queries with a live cookie: 400, never a 500 (%s)", async (_, query, code) => {
    const agent = createAgent();
    await agent.request(start());
    const res = await agent.request(`${callback()}${query.replaceAll("{state}", pendingStateOf(agent)).replaceAll("{iss}", encodeURIComponent(provider.issuer))}`, {
      headers: { accept: "application/json" },
    });
    expect(await refusal(res)).toMatchObject({ status: 400, code });
    expect(agent.jar.has("shortener_session")).toBe(false);
    expect(agent.jar.has("shortener_sso")).toBe(false);
  });

  it("the refusal page for a browser names the problem, escaped, and leads back to sign-in", async () => {
    const agent = createAgent();
    await agent.request(start());
    const res = await agent.request(`${callback()}?error=%3Cscript%3Ealert(1)%3C/script%3E&state=${pendingStateOf(agent)}&iss=${encodeURIComponent(provider.issuer)}`, {
      headers: { accept: "text/html" },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain("The identity provider refused the sign-in (&lt;script&gt;alert(1)&lt;/script&gt;).");
    expect(html).toContain('<a href="/app/">Back to sign-in</a>');
    expect(html).not.toContain("<script>");
  });
});

describe("the provider down", () => {
  it("at the start: 502 sso_unavailable, no cookie; the next start after it is back works", async () => {
    const port = await freePort();
    const lonely = await startTestServer({ OIDC_ISSUER: `http://127.0.0.1:${port}`, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET });
    try {
      const res = await fetch(`${lonely.base}/app/session/sso`, { redirect: "manual", headers: { accept: "application/json" } });
      expect(await refusal(res)).toMatchObject({ status: 502, code: "sso_unavailable" });
      expect(res.headers.getSetCookie()).toEqual([]);
      const page = await fetch(`${lonely.base}/app/session/sso`, { redirect: "manual" });
      expect(page.status).toBe(502);
      expect(await page.text()).toContain("The identity provider cannot be reached");
      // Back up: discovery is tried again, not remembered as failed.
      const back = await startTestProvider({ port, redirectUris: [`${lonely.base}/app/session/sso/callback`], accounts: ACCOUNTS });
      try {
        const again = await fetch(`${lonely.base}/app/session/sso`, { redirect: "manual" });
        expect(again.status).toBe(303);
        expect(again.headers.get("location")).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/`));
      } finally {
        await back.close();
      }
    } finally {
      await lonely.close();
    }
  });

  it("between the start and the callback: 502 sso_unavailable, no session, no user", async () => {
    const port = await freePort();
    const lonely = await startTestServer({ OIDC_ISSUER: `http://127.0.0.1:${port}`, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET });
    const flaky = await startTestProvider({ port, redirectUris: [`${lonely.base}/app/session/sso/callback`], accounts: ACCOUNTS });
    try {
      const agent = createAgent();
      const url = await walkToCallback(agent, `${lonely.base}/app/session/sso`, NEWCOMER.login);
      await flaky.close();
      expect(await refusal(await agent.request(url, { headers: { accept: "application/json" } }))).toMatchObject({ status: 502, code: "sso_unavailable" });
      expect(agent.jar.has("shortener_session")).toBe(false);
      expect((await lonely.database.db.select().from(users).where(eq(users.email, NEWCOMER.email))).length).toBe(0);
    } finally {
      await flaky.close();
      await lonely.close();
    }
  });
});

describe("a workspace that requires single sign-on", () => {
  it("refuses its members' password sign-in (403 sso_required), not the instance admin's (break-glass); SSO signs the member in; their API key keeps working there", async () => {
    const passwordHash = await hashPassword(PASSWORD);
    const member = await insertUserWithWorkspace(db(), { email: MEMBER.email, name: "Member", passwordHash });
    const adminEmail = `admin-${run}@example.test`;
    const admin = await insertUserWithWorkspace(db(), { email: adminEmail, name: "Admin", role: "admin", passwordHash });
    const [team] = await db()
      .insert(workspaces)
      .values({ name: `Team ${run}` })
      .returning({ id: workspaces.id });
    const teamId = team?.id ?? 0;
    await db()
      .insert(workspaceMembers)
      .values([
        { workspaceId: teamId, userId: member.id, role: "editor" },
        { workspaceId: teamId, userId: admin.id, role: "owner" },
      ]);
    const memberKey = await issueApiKey(db(), member.id, teamId);

    // Not yet required: the password works.
    expect((await passwordSignIn(server.base, MEMBER.email, PASSWORD)).status).toBe(200);
    await db().update(workspaces).set({ requireSso: true }).where(eq(workspaces.id, teamId));

    const refused = await passwordSignIn(server.base, MEMBER.email, PASSWORD);
    expect(refused).toMatchObject({ status: 403, body: { code: "sso_required", message: expect.stringContaining("requires single sign-on") }, cookie: undefined });
    // A wrong password is still just a wrong password: the requirement is told only to who knows it.
    expect((await passwordSignIn(server.base, MEMBER.email, "not the password")).status).toBe(401);
    // The one-time sign-in with an API key (a member without a password) is refused the same way.
    const keyOnly = await insertUserWithWorkspace(db(), { email: `key-only-${run}@example.test`, name: "Key Only" });
    await db().insert(workspaceMembers).values({ workspaceId: teamId, userId: keyOnly.id, role: "viewer" });
    const keyOnlyKey = await issueApiKey(db(), keyOnly.id, keyOnly.workspaceId);
    const keySignIn = await fetch(`${server.base}/app/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: keyOnlyKey }) });
    expect(keySignIn.status).toBe(403);
    expect(((await keySignIn.json()) as { code: string }).code).toBe("sso_required");
    // The instance admin: break-glass while the provider is down.
    const breakGlass = await passwordSignIn(server.base, adminEmail, PASSWORD);
    expect(breakGlass.status).toBe(200);
    expect(breakGlass.cookie).toBeDefined();
    // API keys are not sessions: the member's key of the team still acts there.
    const links = await fetch(`${server.base}/api/v1/links`, { headers: { authorization: `Bearer ${memberKey}` } });
    expect(links.status).toBe(200);

    // Single sign-on lets the member in, as the same account.
    const agent = createAgent();
    expect((await agent.request(await walkToCallback(agent, start(), MEMBER.login))).status).toBe(303);
    expect((await me(`shortener_session=${agent.jar.get("shortener_session")}`)).data).toMatchObject({ email: MEMBER.email, is_sso: true });
    expect((await userByEmail(MEMBER.email))?.id).toBe(member.id);
  });
});

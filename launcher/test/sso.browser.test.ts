import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import pino from "pino";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword, insertUserWithWorkspace, oidcSubjectOf } from "@shortener/core";
import { sessions, users, workspaceMembers, workspaces } from "@shortener/db";
import { freePort, openServerStorage } from "@shortener/db/testing";
import { parseEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";
import { openChromium, type Chromium } from "./browser.ts";
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, type TestAccount, type TestProvider } from "./oidc.ts";

/**
 * Single sign-on through the real browser flow (CONTRACT §24, issue #30's "must show" 2): Debian's
 * Chromium on the dashboard's sign-in screen, a real OpenID provider (oidc-provider on 127.0.0.1 with a
 * static client; an account with a verified email, one without), the whole service on PGlite with the
 * dashboard built from source into a folder of this test's own. Each step prints one line.
 */
const WEB = fileURLToPath(new URL("../../apps/web/", import.meta.url));
const PASSWORD = "a password of ours";
const EXISTING: TestAccount = { login: "ada", email: "ada@example.test", isEmailVerified: true, name: "Ada Lovelace" };
const NEWCOMER: TestAccount = { login: "grace", email: "grace@example.test", isEmailVerified: true, name: "Grace Hopper" };
const UNVERIFIED: TestAccount = { login: "mallory", email: "mallory@example.test", isEmailVerified: false, name: "Mallory" };
const MEMBER: TestAccount = { login: "bob", email: "bob@example.test", isEmailVerified: true, name: "Bob Member" };

let server: RunningServer;
let provider: TestProvider;
let browser: Chromium;
let page: Page;
let base: string;
const cleanups: Array<() => Promise<void> | void> = [];
const problems: string[] = [];
const db = () => server.database.db;
const step = (line: string) => console.log(`[sso] ${line}`);

beforeAll(async () => {
  // The dashboard as `pnpm start` builds it, into a folder of its own (other browser tests build apps/web/dist).
  const outDir = mkdtempSync(join(tmpdir(), "shortener-sso-web-"));
  cleanups.push(() => rmSync(outDir, { recursive: true, force: true }));
  const vite = join(WEB, "node_modules", "vite", "bin", "vite.js");
  const built = spawnSync(process.execPath, [vite, "build", "--logLevel", "warn", "--outDir", outDir, "--emptyOutDir"], {
    cwd: WEB,
    encoding: "utf8",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (built.status !== 0) throw new Error(`vite build failed:\n${built.stdout}\n${built.stderr}`);

  const storage = await openServerStorage();
  cleanups.push(() => storage.close());
  const [port, providerPort] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  provider = await startTestProvider({ port: providerPort, redirectUris: [`${base}/app/session/sso/callback`], accounts: [EXISTING, NEWCOMER, UNVERIFIED, MEMBER] });
  cleanups.push(() => provider.close());
  server = await startServer(
    parseEnv({ ...storage.settings, PORT: String(port), OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET, RATE_LIMIT_PER_MINUTE: "100000" }),
    pino({ level: "silent" }),
    { dashboardDir: outDir },
  );
  cleanups.push(() => server.close());
  step(`provider ${provider.issuer} (oidc-provider), client "${CLIENT_ID}", redirect URI ${base}/app/session/sso/callback; service ${base}/app/`);

  browser = await openChromium({ viewport: { width: 1000, height: 800 } });
  cleanups.push(() => browser.close());
  page = browser.page;
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("response", (res) => {
    if (res.status() >= 500) problems.push(`${res.status()} ${res.url()}`);
  });
}, 180_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A fresh browser state: no session here, no session at the provider. */
async function signedOut(): Promise<void> {
  await browser.context.clearCookies();
  await page.goto(`${base}/app/`);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
}

/** Clicks "Sign in with SSO" and goes through the provider's login and consent pages as `account`; resolves on the page the service answers with. */
async function signInWithSso(account: TestAccount): Promise<{ status: number; url: string }> {
  const link = page.getByRole("link", { name: "Sign in with SSO" });
  await link.waitFor();
  await link.click();
  await page.waitForURL((url) => url.origin === provider.issuer);
  await page.locator('input[name="login"]').fill(account.login);
  await page.locator('input[name="password"]').fill("whatever the provider asks");
  await page.getByRole("button", { name: "Sign-in" }).click();
  const landed = page.waitForResponse((res) => res.url().startsWith(`${base}/app/session/sso/callback`));
  // The consent page (first time for this account at the provider).
  await page.getByRole("button", { name: "Continue" }).click();
  const callback = await landed;
  await page.waitForLoadState("domcontentloaded");
  return { status: callback.status(), url: page.url() };
}

/** Who the browser's session is: auth.me with the browser's cookies (the refusal page's CSP lets no script fetch). */
async function whoAmI(): Promise<{ email: string; is_sso: boolean; has_password: boolean } | null> {
  const res = await browser.context.request.get(`${base}/trpc/auth.me`);
  if (!res.ok()) return null;
  return ((await res.json()) as { result: { data: { email: string; is_sso: boolean; has_password: boolean } } }).result.data;
}

const usersCount = async () => (await db().select({ id: users.id }).from(users)).length;

describe("single sign-on in Chromium against a real OpenID provider", () => {
  it("1. an existing user signs in with SSO: the same account, matched by verified email", async () => {
    const existing = await insertUserWithWorkspace(db(), { email: EXISTING.email, name: "Ada (made by an admin)", passwordHash: await hashPassword(PASSWORD) });
    await signedOut();
    const before = await usersCount();
    const answer = await signInWithSso(EXISTING);
    expect(answer.status).toBe(303);
    await page.getByRole("link", { name: "Shortener" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/");
    const me = await whoAmI();
    expect(me).toMatchObject({ email: EXISTING.email, is_sso: true });
    const row = (await db().select().from(users).where(eq(users.email, EXISTING.email)))[0];
    expect(row).toMatchObject({ id: existing.id, oidcSubject: oidcSubjectOf(provider.issuer, EXISTING.login) });
    expect(await usersCount()).toBe(before);
    step(
      `1 existing user ${EXISTING.email}: "Sign in with SSO" → provider login and consent → callback ${answer.status} → ${new URL(answer.url).pathname} signed in as user ${row?.id} (the one made before, users ${before} → ${await usersCount()}), oidc_subject "${row?.oidcSubject}", session is_sso=${me?.is_sso}`,
    );
  });

  it("2. a first sign-in creates the user with their personal workspace; no password screen", async () => {
    await signedOut();
    const before = await usersCount();
    const answer = await signInWithSso(NEWCOMER);
    expect(answer.status).toBe(303);
    await page.getByRole("link", { name: "Shortener" }).waitFor();
    expect(await page.getByRole("heading", { name: "Choose a password" }).count()).toBe(0);
    const me = await whoAmI();
    expect(me).toMatchObject({ email: NEWCOMER.email, is_sso: true, has_password: false });
    const row = (await db().select().from(users).where(eq(users.email, NEWCOMER.email)))[0];
    const [personal] = await db()
      .select()
      .from(workspaces)
      .where(eq(workspaces.personalUserId, row?.id ?? 0));
    expect(row).toMatchObject({ name: NEWCOMER.name, role: "user", passwordHash: null });
    expect(personal).toBeDefined();
    expect(await usersCount()).toBe(before + 1);
    step(
      `2 first sign-in ${NEWCOMER.email}: callback ${answer.status} → dashboard; created user ${row?.id} "${row?.name}" with personal workspace ${personal?.id} (users ${before} → ${await usersCount()}), no password asked (has_password=${me?.has_password})`,
    );
  });

  it("3. an unverified email is refused: a 403 page saying so, no user, no session", async () => {
    await signedOut();
    const [users0, sessions0] = [await usersCount(), (await db().select({ id: sessions.id }).from(sessions)).length];
    const answer = await signInWithSso(UNVERIFIED);
    expect(answer.status).toBe(403);
    const message = (await page.locator("p.short").textContent()) ?? "";
    expect(message).toContain("not verified");
    expect(await page.getByRole("link", { name: "Back to sign-in" }).count()).toBe(1);
    expect(await whoAmI()).toBeNull();
    expect((await db().select().from(users).where(eq(users.email, UNVERIFIED.email))).length).toBe(0);
    const [users1, sessions1] = [await usersCount(), (await db().select({ id: sessions.id }).from(sessions)).length];
    expect([users1, sessions1]).toEqual([users0, sessions0]);
    step(`3 unverified ${UNVERIFIED.email} (email_verified=false): callback ${answer.status} page "${message}"; users ${users0} → ${users1}, sessions ${sessions0} → ${sessions1}`);
  });

  it("4. a workspace that requires SSO refuses its member's password sign-in; SSO lets them in", async () => {
    const member = await insertUserWithWorkspace(db(), { email: MEMBER.email, name: MEMBER.name, passwordHash: await hashPassword(PASSWORD) });
    const [team] = await db().insert(workspaces).values({ name: "Acme", requireSso: true }).returning({ id: workspaces.id });
    await db()
      .insert(workspaceMembers)
      .values({ workspaceId: team?.id ?? 0, userId: member.id, role: "editor" });
    await signedOut();
    await page.getByLabel("Email").fill(MEMBER.email);
    await page.getByLabel("Password").fill(PASSWORD);
    const refused = page.waitForResponse((res) => res.url() === `${base}/app/session` && res.request().method() === "POST");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    const res = await refused;
    const body = (await res.json()) as { code: string; message: string };
    const banner = page.getByRole("alert");
    await banner.waitFor();
    const shown = (await banner.textContent()) ?? "";
    expect(res.status()).toBe(403);
    expect(body.code).toBe("sso_required");
    expect(shown).toContain("requires single sign-on");
    expect(await whoAmI()).toBeNull();
    step(`4 required SSO: workspace ${team?.id} "Acme" (require_sso) member ${MEMBER.email} signs in with the password → ${res.status()} ${body.code}, the screen shows "${shown}"`);
    const answer = await signInWithSso(MEMBER);
    expect(answer.status).toBe(303);
    await page.getByRole("link", { name: "Shortener" }).waitFor();
    expect(await whoAmI()).toMatchObject({ email: MEMBER.email, is_sso: true });
    step(`4 required SSO: the same member with "Sign in with SSO" → callback ${answer.status} → dashboard, signed in as user ${member.id} (is_sso=true)`);
  });

  it("no script error and no 5xx on the way", () => {
    expect(problems).toEqual([]);
  });
});

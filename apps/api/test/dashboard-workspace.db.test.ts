import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "./helpers.ts";

/**
 * What the dashboard's workspace switcher reads (CONTRACT §24, docs/dashboard.md): `auth.me`'s
 * `can_switch_workspace` says whether `workspaces.switch` can move the caller — a password session yes;
 * a session opened with an API key and a bearer key no — and the switch agrees with it every time.
 */
let api: TestApi;

beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});

type Who = { cookie?: string; csrf?: string; bearer?: string };

async function inject(method: InjectOptions["method"], url: string, who: Who, json?: unknown) {
  const headers: Record<string, string> = {};
  if (who.cookie) headers.cookie = who.cookie;
  if (who.csrf) headers["x-csrf-token"] = who.csrf;
  if (who.bearer) headers.authorization = `Bearer ${who.bearer}`;
  if (json !== undefined) headers["content-type"] = "application/json";
  const res = await api.app.inject({ method, url, headers, ...(json !== undefined ? { payload: JSON.stringify(json) } : {}) });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

async function signIn(body: Record<string, string>): Promise<Who> {
  const res = await inject("POST", "/app/session", {}, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { cookie: String(res.headers["set-cookie"]).split(";", 1)[0] ?? "", csrf: res.body.data.csrf_token as string };
}

describe("auth.me: can_switch_workspace", () => {
  it("a password session can switch; a session opened with an API key and a bearer key cannot, and workspaces.switch agrees (403 naming why)", async () => {
    const user = await api.user();
    const opened = await signIn({ api_key: user.apiKey });
    expect((await inject("POST", "/trpc/auth.setPassword", opened, { password: "a good long password" })).status).toBe(200);
    const password = await signIn({ email: user.email, password: "a good long password" });
    // A shared workspace of the user's, to switch to.
    const made = await inject("POST", "/trpc/workspaces.create", { bearer: user.apiKey }, { name: "Switch target" });
    expect(made.status).toBe(200);
    const target = made.body.result.data.id as number;

    const cases: Array<[string, Who, boolean, RegExp | null]> = [
      ["password session", password, true, null],
      ["session opened with the account's key", opened, false, /opened with an API key/],
      ["bearer key", { bearer: user.apiKey }, false, /only a dashboard session switches/],
    ];
    for (const [label, who, canSwitch, refusal] of cases) {
      const me = await inject("GET", "/trpc/auth.me", who);
      expect(me.status, label).toBe(200);
      expect(me.body.result.data.can_switch_workspace, label).toBe(canSwitch);
      const switched = await inject("POST", "/trpc/workspaces.switch", who, { id: target });
      expect(switched.status, label).toBe(canSwitch ? 200 : 403);
      if (refusal) expect(switched.body.error.message, label).toMatch(refusal);
      else expect(switched.body.result.data).toMatchObject({ id: target, name: "Switch target", role: "owner" });
    }
    // Only the password session moved.
    expect((await inject("GET", "/trpc/workspaces.current", password)).body.result.data.id).toBe(target);
    expect((await inject("GET", "/trpc/workspaces.current", opened)).body.result.data.id).toBe(user.workspaceId);
  });
});

import type { InjectOptions } from "fastify";
import { issueApiKey, type WorkspaceRole } from "@shortener/core";
import { expect } from "vitest";
import type { TestApi } from "./helpers.ts";

/** A member of the team workspace: the user, and a full-scope key of theirs acting there. */
export type Member = { id: number; email: string; key: string; personalKey: string };
/** A shared workspace with one member of each role, made through the API (create, invite, accept). */
export type Team = { id: number; name: string } & Record<WorkspaceRole, Member>;

/**
 * The owner creates a workspace and invites an admin, an editor and a viewer; each accepts with their
 * personal key (`POST /invitations/accept`); then each gets a key acting in the team workspace.
 */
export async function createTeam(api: TestApi, name = `Team ${Math.random().toString(36).slice(2, 8)}`): Promise<Team> {
  const owner = await api.user();
  const created = await api.call(owner, "POST", "/api/v1/workspaces", { name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.data.id as number;
  const ownerKey = await issueApiKey(api.database.db, owner.id, id);
  const member = async (role: WorkspaceRole): Promise<Member> => {
    if (role === "owner") return { id: owner.id, email: owner.email, key: ownerKey, personalKey: owner.apiKey };
    const user = await api.user();
    const invitation = await api.call(ownerKey, "POST", `/api/v1/workspaces/${id}/invitations`, { role });
    expect(invitation.status, JSON.stringify(invitation.body)).toBe(201);
    const accepted = await api.call(user, "POST", "/api/v1/invitations/accept", { token: invitation.body.data.token });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    return { id: user.id, email: user.email, key: await issueApiKey(api.database.db, user.id, id), personalKey: user.apiKey };
  };
  return { id, name, owner: await member("owner"), admin: await member("admin"), editor: await member("editor"), viewer: await member("viewer") };
}

export type Answer = { status: number; body: any; headers: Record<string, unknown> };

/** A JSON request to the app (the dashboard's routes, tRPC), with a cookie and CSRF token when given. */
export async function injectJson(api: TestApi, method: InjectOptions["method"], url: string, options: { json?: unknown; cookie?: string; csrf?: string; key?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  if (options.csrf) headers["x-csrf-token"] = options.csrf;
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  const res = await api.app.inject({ method, url, headers, ...(options.json !== undefined ? { payload: JSON.stringify(options.json) } : {}) });
  const isJson = String(res.headers["content-type"] ?? "").startsWith("application/json");
  return { status: res.statusCode, body: isJson ? res.json() : res.body, headers: res.headers };
}

/** The `name=value` part of a Set-Cookie header, to send back. */
export function cookieOf(answer: Answer): string {
  const header = answer.headers["set-cookie"];
  const first = Array.isArray(header) ? String(header[0] ?? "") : String(header ?? "");
  return first.split(";", 1)[0] ?? "";
}

import { and, eq, sql } from "drizzle-orm";
import { users, workspaceMembers, workspaces } from "@shortener/db";
import type { SystemCtx } from "../context.ts";

/** Why a sign-in without single sign-on is refused (the API's 403 `sso_required`). */
export const SSO_REQUIRED_MESSAGE = "A workspace you belong to requires single sign-on: use “Sign in with SSO”.";

/**
 * Whether `userId` must sign in to the dashboard with single sign-on (CONTRACT §24, docs/sso.md): they
 * are a member of a workspace with `require_sso`, and not the instance admin — the admin's password is
 * the break-glass way in while the identity provider is down.
 */
export async function isSsoRequiredOf(ctx: SystemCtx, userId: number): Promise<boolean> {
  const [row] = await ctx.db
    .select({ one: sql<number>`1` })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(and(eq(workspaceMembers.userId, userId), eq(workspaces.requireSso, true), sql`${users.role} <> 'admin'`))
    .limit(1);
  return row !== undefined;
}

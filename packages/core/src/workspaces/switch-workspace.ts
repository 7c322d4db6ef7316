import { and, eq } from "drizzle-orm";
import { sessions, workspaceMembers, workspaces } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { ForbiddenError, NotFoundError, SsoRequiredError } from "../errors.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { workspaceColumns, type Workspace } from "./workspace.ts";

/**
 * Switches the dashboard session `sessionId` of the acting user to workspace `id`, one they are a member
 * of (any other: 404). A session opened with an API key stays in the key's workspace, and a bearer key
 * has no session to switch (403). A workspace that requires single sign-on takes only a session opened
 * through it: 403 `sso_required` (CONTRACT §24). Returns the workspace with the user's role there.
 */
export async function switchWorkspace({ ctx, sessionId, id }: { ctx: Ctx; sessionId: number | null; id: number }): Promise<Workspace> {
  const { id: workspaceId } = parseInput(IdInput, { id });
  if (sessionId === null) throw new ForbiddenError("An API key acts in its own workspace: only a dashboard session switches workspaces.");
  const [session] = await ctx.db
    .select({ apiKeyId: sessions.apiKeyId, isSso: sessions.isSso })
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, ctx.actor.userId)));
  if (!session) throw new NotFoundError("Session");
  if (session.apiKeyId !== null) throw new ForbiddenError("This session was opened with an API key: it stays in the key's workspace.");
  const [row] = await ctx.db
    .select({ ...workspaceColumns, role: workspaceMembers.role, personalUserId: workspaces.personalUserId })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, ctx.actor.userId)));
  if (!row) throw new NotFoundError("Workspace");
  if (row.requireSso && !session.isSso) throw new SsoRequiredError(row.name);
  // The personal workspace is the session's default (null), so it follows the user whatever happens.
  await ctx.db
    .update(sessions)
    .set({ workspaceId: row.personalUserId === ctx.actor.userId ? null : workspaceId })
    .where(eq(sessions.id, sessionId));
  const { personalUserId: _personal, ...workspace } = row;
  return workspace;
}

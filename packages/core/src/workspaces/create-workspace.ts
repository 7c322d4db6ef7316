import { eq } from "drizzle-orm";
import { workspaceMembers, workspaces } from "@shortener/db";
import { recordAudit } from "../audit/record-audit.ts";
import type { Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { withinUserCap } from "../users/user-cap.ts";
import { parseInput } from "../validation/fields.ts";
import { CreateWorkspaceInput } from "./schemas.ts";
import { auditedWorkspace, workspaceColumns, type Workspace } from "./workspace.ts";

/** Most workspaces one user may belong to when creating another (CONTRACT §15: every list a user grows is capped). */
export const MAX_WORKSPACES_PER_USER = 100;

/**
 * A new shared workspace, of which the acting user is the owner (CONTRACT §24). The audit entry belongs
 * to the new workspace. The user keeps acting where they were: a dashboard session switches to it with
 * `switchWorkspace`, a key stays in its own.
 */
export async function createWorkspace({ ctx, input }: { ctx: Ctx; input: CreateWorkspaceInput }): Promise<Workspace> {
  const data = parseInput(CreateWorkspaceInput, input);
  const cap = {
    table: workspaceMembers,
    held: eq(workspaceMembers.userId, ctx.actor.userId),
    max: MAX_WORKSPACES_PER_USER,
    refusal: () => ValidationError.field("name", `You cannot belong to more than ${MAX_WORKSPACES_PER_USER} workspaces; leave or delete one first.`),
  };
  return withinUserCap(ctx, cap, async (tx) => {
    const at = tx.now();
    const [row] = await tx.db.insert(workspaces).values({ name: data.name, createdAt: at, updatedAt: at }).returning(workspaceColumns);
    if (!row) throw new Error("insert returned no row");
    await tx.db.insert(workspaceMembers).values({ workspaceId: row.id, userId: tx.actor.userId, role: "owner", createdAt: at });
    const inNew = { ...tx, actor: { ...tx.actor, workspaceId: row.id, workspaceRole: "owner" as const } };
    await recordAudit(inNew, { action: "workspace.created", objectType: "workspace", objectId: row.id, after: auditedWorkspace(row) });
    return { ...row, role: "owner" };
  });
}

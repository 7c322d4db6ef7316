import { eq } from "drizzle-orm";
import { workspaces } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { assertActingIn, workspaceColumns, type Workspace } from "./workspace.ts";

/** The workspace the actor acts in, by its id (any other: 404), with the actor's role there. */
export async function getWorkspace({ ctx, id }: { ctx: Ctx; id: number }): Promise<Workspace> {
  const { id: workspaceId } = parseInput(IdInput, { id });
  assertActingIn(ctx, workspaceId);
  return getCurrentWorkspace({ ctx });
}

/** The workspace the actor acts in (the dashboard's `workspaces.current`), with the actor's role there. */
export async function getCurrentWorkspace({ ctx }: { ctx: Ctx }): Promise<Workspace> {
  const [row] = await ctx.db.select(workspaceColumns).from(workspaces).where(eq(workspaces.id, ctx.actor.workspaceId));
  if (!row) throw new NotFoundError("Workspace");
  return { ...row, role: ctx.actor.workspaceRole };
}

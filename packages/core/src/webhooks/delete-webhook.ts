import { and, eq } from "drizzle-orm";
import { webhooks } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";

/** Deletes the caller's webhook with its deliveries and their attempts (foreign keys cascade). */
export async function deleteWebhook({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  const [row] = await ctx.db
    .delete(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.workspaceId, ctx.actor.workspaceId)))
    .returning({ id: webhooks.id });
  if (!row) throw new NotFoundError("Webhook");
  return row;
}

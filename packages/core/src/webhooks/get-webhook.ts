import type { Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { findOwnedWebhook, type Webhook } from "./webhook.ts";

/** One of the caller's webhooks; another user's is NOT_FOUND. */
export async function getWebhook({ ctx, id }: { ctx: Ctx; id: number }): Promise<Webhook> {
  const webhook = await findOwnedWebhook(ctx.db, ctx.actor.workspaceId, id);
  if (!webhook) throw new NotFoundError("Webhook");
  return webhook;
}

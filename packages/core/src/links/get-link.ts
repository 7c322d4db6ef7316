import type { Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import type { Link } from "./link-columns.ts";
import { findOwnedLink } from "./load-links.ts";

/** The caller's link, or NOT_FOUND (also for another user's link: the same answer). */
export async function getLink({ ctx, id }: { ctx: Ctx; id: number }): Promise<Link> {
  const link = await findOwnedLink(ctx.db, ctx.now(), ctx.actor.workspaceId, id);
  if (!link) throw new NotFoundError("Link");
  return link;
}

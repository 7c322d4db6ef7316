import { and, eq } from "drizzle-orm";
import { links } from "@shortener/db";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { notifyChange } from "../changes/changes.ts";
import { hasSubscribers, recordLinkEvent } from "../webhooks/record-event.ts";
import { findOwnedLink } from "./load-links.ts";

export async function deleteLink({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  return withTransaction(ctx, async (tx) => {
    // A webhook wants the link as it was: read it before it goes.
    const before = tx.events && (await hasSubscribers(tx.db, tx.actor.workspaceId, "link.deleted")) ? await findOwnedLink(tx.db, tx.now(), tx.actor.workspaceId, id) : undefined;
    const [row] = await tx.db
      .delete(links)
      .where(and(eq(links.id, id), eq(links.workspaceId, tx.actor.workspaceId)))
      .returning({ id: links.id, domainId: links.domainId, alias: links.alias });
    if (!row) throw new NotFoundError("Link");
    await notifyChange(tx.db, { kind: "link", ...row });
    if (before) await recordLinkEvent(tx, "link.deleted", before);
    return { id: row.id };
  });
}

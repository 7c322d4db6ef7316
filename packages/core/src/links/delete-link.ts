import { and, eq } from "drizzle-orm";
import { links } from "@shortener/db";
import { linkAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { notifyChange } from "../changes/changes.ts";
import { recordLinkEvent } from "../webhooks/record-event.ts";
import { findOwnedLink } from "./load-links.ts";

export async function deleteLink({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  return withTransaction(ctx, async (tx) => {
    // The audit log (and a webhook) wants the link as it was: read it before it goes.
    const before = await findOwnedLink(tx.db, tx.now(), tx.actor.workspaceId, id);
    const [row] = await tx.db
      .delete(links)
      .where(and(eq(links.id, id), eq(links.workspaceId, tx.actor.workspaceId)))
      .returning({ id: links.id, domainId: links.domainId, alias: links.alias });
    if (!row) throw new NotFoundError("Link");
    await notifyChange(tx.db, { kind: "link", ...row });
    if (before) {
      await recordLinkEvent(tx, "link.deleted", before);
      await recordAudit(tx, { action: "link.deleted", objectType: "link", objectId: id, before: linkAuditView(before) });
    }
    return { id: row.id };
  });
}

import { links } from "@shortener/db";
import { linkAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { notifyLinksChange } from "../changes/changes.ts";
import { parseFields, throwIfErrors } from "../validation/fields.ts";
import { recordLinkEvent } from "../webhooks/record-event.ts";
import { foldIdErrors, invalidIdsMessage, ownedAmong } from "./bulk-ids.ts";
import { loadLinks } from "./load-links.ts";
import { BulkDeleteLinksShape, type BulkDeleteLinksInput } from "./schemas.ts";

/**
 * Deletes up to 100 of the caller's links at once (CONTRACT §17), all or nothing: one statement in one
 * transaction; if any id is unknown or another user's, nothing is deleted and `ids` fails with the
 * offending ids. One change notification names every link; one `link.deleted` event and one audit
 * entry (`link.bulk_deleted`) per link.
 * Duplicate ids count once. Answers the deleted ids in the order sent.
 */
export async function bulkDeleteLinks({ ctx, input }: { ctx: Ctx; input: BulkDeleteLinksInput }): Promise<Array<{ id: number }>> {
  const { values, errors } = parseFields(BulkDeleteLinksShape, input);
  foldIdErrors(errors);
  throwIfErrors(errors);
  const ids = values.ids ?? [];
  return withTransaction(ctx, async (tx) => {
    const now = tx.now();
    const where = ownedAmong(tx.actor.workspaceId, ids);
    // The audit log (and a webhook) wants each link as it was: read them before they go.
    const before = await loadLinks(tx.db, now, { where });
    const rows = await tx.db.delete(links).where(where).returning({ id: links.id, domainId: links.domainId, alias: links.alias });
    if (rows.length !== ids.length) {
      const deleted = new Set(rows.map((r) => r.id));
      // Throwing rolls the delete back: nothing changes.
      throw ValidationError.field("ids", invalidIdsMessage(ids.filter((id) => !deleted.has(id))));
    }
    await notifyLinksChange(tx.db, rows);
    const byId = new Map(before.map((link) => [link.id, link]));
    for (const id of ids) {
      const link = byId.get(id);
      if (link) await recordLinkEvent(tx, "link.deleted", link);
    }
    // One entry per link deleted, in one statement.
    await recordAudit(
      tx,
      ids.flatMap((id) => {
        const link = byId.get(id);
        return link ? [{ action: "link.bulk_deleted", objectType: "link", objectId: id, before: linkAuditView(link) }] : [];
      }),
    );
    return ids.map((id) => ({ id }));
  });
}

import { isUniqueViolation } from "@shortener/db";
import { linkAuditView } from "../audit/audit-views.ts";
import { recordAudit, type AuditEntry } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { ValidationError, type FieldErrors } from "../errors.ts";
import { notifyLinksChange, type LinkKey } from "../changes/changes.ts";
import { addError, parseFields, throwIfErrors } from "../validation/fields.ts";
import { recordLinkEvent } from "../webhooks/record-event.ts";
import { ALIAS_TAKEN } from "./alias-conflict.ts";
import { foldIdErrors, invalidIdsMessage, mergeErrors, ownedAmong } from "./bulk-ids.ts";
import { respellTags } from "./respell-tags.ts";
import { changesOf, checkUpdateOf, hashSecrets, secretsSent, writeLinkUpdate } from "./link-update.ts";
import type { Link } from "./link-columns.ts";
import { loadLinks } from "./load-links.ts";
import { BulkUpdateLinksShape, type BulkUpdateLinksInput } from "./schemas.ts";
import { checkReferences, destinations } from "./validate-link.ts";

/**
 * Applies the same sent fields to up to 100 of the caller's links (CONTRACT §17), with the rules of a
 * single update (`updateLink`), all or nothing: every failing field of every link is reported at once
 * (unknown or foreign ids on `ids`) and nothing changes; otherwise every link is written in one
 * transaction, with one change notification for the batch, one `link.updated` event and one audit
 * entry (`link.bulk_updated`) per link.
 * Duplicate ids count once; `alias` can be sent only with a single id. Answers the links in the order sent.
 */
export async function bulkUpdateLinks({ ctx, input }: { ctx: Ctx; input: BulkUpdateLinksInput }): Promise<Link[]> {
  const now = ctx.now();
  const { values: parsed, errors } = parseFields(BulkUpdateLinksShape, input);
  foldIdErrors(errors);
  const { ids = [], ...v } = parsed;
  const existing = ids.length ? await loadLinks(ctx.db, now, { where: ownedAmong(ctx.actor.workspaceId, ids) }) : [];
  const byId = new Map(existing.map((link) => [link.id, link]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length) addError(errors, "ids", invalidIdsMessage(missing));

  // The rules that depend on each stored link; one message per field however many links break it.
  const endsAt = new Map<number, Date | null | undefined>();
  for (const link of existing) {
    const own: FieldErrors = {};
    endsAt.set(link.id, checkUpdateOf(link, v, now, own));
    mergeErrors(errors, own);
  }
  const only = ids.length === 1 ? existing[0] : undefined;
  if (v.alias !== undefined && ids.length > 1) addError(errors, "alias", "The alias can only be changed on one link at a time.");
  await checkReferences(
    ctx.db,
    ctx.actor.workspaceId,
    {
      spaceId: v.space_id,
      pixelIds: v.pixel_ids,
      alias: only && v.alias && v.alias !== only.alias ? { domainId: only.domain.id, alias: v.alias, exceptLinkId: only.id } : undefined,
      urls: destinations(v),
    },
    errors,
  );
  throwIfErrors(errors);

  const hashes = await hashSecrets(v);
  if (v.tags) v.tags = await respellTags(ctx.db, ctx.actor.workspaceId, v.tags);
  try {
    return await withTransaction(ctx, async (tx) => {
      // One statement per expiration moment (the same for every link unless only a date or only a
      // time is sent, which keeps each link's stored other half).
      const groups = new Map<string, { endsAt: Date | null | undefined; ids: number[] }>();
      for (const id of ids) {
        const at = endsAt.get(id);
        const key = at === undefined ? "keep" : at === null ? "none" : at.toISOString();
        const group = groups.get(key) ?? { endsAt: at, ids: [] };
        group.ids.push(id);
        groups.set(key, group);
      }
      const written = new Map<number, { alias: string; domainId: number }>();
      for (const group of groups.values()) {
        for (const row of await writeLinkUpdate(tx, group.ids, changesOf(v, hashes, group.endsAt), v.pixel_ids, now)) written.set(row.id, row);
      }
      const keys: LinkKey[] = [];
      const gone: number[] = [];
      for (const id of ids) {
        const before = byId.get(id);
        const updated = written.get(id);
        if (!before || !updated) {
          gone.push(id);
          continue;
        }
        keys.push({ id, domainId: updated.domainId, alias: before.alias });
        if (updated.alias !== before.alias) keys.push({ id, domainId: updated.domainId, alias: updated.alias });
      }
      // Deleted since the checks: throwing rolls every write back.
      if (gone.length) throw ValidationError.field("ids", invalidIdsMessage(gone));
      await notifyLinksChange(tx.db, keys);
      const after = new Map((await loadLinks(tx.db, now, { where: ownedAmong(tx.actor.workspaceId, ids) })).map((link) => [link.id, link]));
      const result: Link[] = [];
      const audit: AuditEntry[] = [];
      const secretsChanged = secretsSent(v);
      for (const id of ids) {
        const link = after.get(id);
        const before = byId.get(id);
        if (!link || !before) throw ValidationError.field("ids", invalidIdsMessage([id]));
        await recordLinkEvent(tx, "link.updated", link);
        audit.push({ action: "link.bulk_updated", objectType: "link", objectId: id, before: linkAuditView(before), after: linkAuditView(link), secretsChanged });
        result.push(link);
      }
      // One entry per link changed, in one statement.
      await recordAudit(tx, audit);
      return result;
    });
  } catch (error) {
    if (isUniqueViolation(error, "links_domain_id_alias_key")) throw ValidationError.field("alias", ALIAS_TAKEN);
    throw error;
  }
}

import { isUniqueViolation } from "@shortener/db";
import { linkAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError, ValidationError } from "../errors.ts";
import { notifyChange } from "../changes/changes.ts";
import { parseFields, throwIfErrors } from "../validation/fields.ts";
import { recordLinkEvent } from "../webhooks/record-event.ts";
import { ALIAS_TAKEN } from "./alias-conflict.ts";
import { changesOf, checkUpdateOf, hashSecrets, secretsSent, writeLinkUpdate } from "./link-update.ts";
import type { Link } from "./link-columns.ts";
import { findOwnedLink } from "./load-links.ts";
import { UpdateLinkShape, type UpdateLinkInput } from "./schemas.ts";
import { respellTags } from "./respell-tags.ts";
import { mergeUtm } from "./utm.ts";
import { checkReferences, destinations } from "./validate-link.ts";

/** Applies the sent fields to the caller's link; an empty value clears a field (CONTRACT §4). */
export async function updateLink({ ctx, id, input }: { ctx: Ctx; id: number; input: UpdateLinkInput }): Promise<Link> {
  const now = ctx.now();
  const existing = await findOwnedLink(ctx.db, now, ctx.actor.workspaceId, id);
  if (!existing) throw new NotFoundError("Link");
  const { values: v, errors } = parseFields(UpdateLinkShape, input);
  const endsAt = checkUpdateOf(existing, v, now, errors);
  // UTM fields merge into the url sent with them, else into the stored one (CONTRACT §25).
  const merged = mergeUtm(v.url ?? existing.url, v, errors);
  if (merged !== (v.url ?? existing.url)) v.url = merged;
  const aliasChanges = v.alias !== undefined && v.alias !== existing.alias;
  await checkReferences(
    ctx.db,
    ctx.actor.workspaceId,
    {
      spaceId: v.space_id,
      pixelIds: v.pixel_ids,
      alias: aliasChanges && v.alias ? { domainId: existing.domain.id, alias: v.alias, exceptLinkId: id } : undefined,
      urls: destinations(v),
    },
    errors,
  );
  throwIfErrors(errors);
  if (v.tags) v.tags = await respellTags(ctx.db, ctx.actor.workspaceId, v.tags);

  const set = changesOf(v, await hashSecrets(v), endsAt);
  try {
    return await withTransaction(ctx, async (tx) => {
      const [updated] = await writeLinkUpdate(tx, [id], set, v.pixel_ids, now);
      if (!updated) throw new NotFoundError("Link");
      await notifyChange(tx.db, { kind: "link", id, domainId: updated.domainId, alias: existing.alias });
      if (updated.alias !== existing.alias) await notifyChange(tx.db, { kind: "link", id, domainId: updated.domainId, alias: updated.alias });
      const link = await findOwnedLink(tx.db, now, tx.actor.workspaceId, id);
      if (!link) throw new NotFoundError("Link");
      await recordLinkEvent(tx, "link.updated", link);
      await recordAudit(tx, { action: "link.updated", objectType: "link", objectId: id, before: linkAuditView(existing), after: linkAuditView(link), secretsChanged: secretsSent(v) });
      return link;
    });
  } catch (error) {
    if (isUniqueViolation(error, "links_domain_id_alias_key")) throw ValidationError.field("alias", ALIAS_TAKEN);
    throw error;
  }
}

import { and, eq } from "drizzle-orm";
import { isUniqueViolation, linkPixels, links } from "@shortener/db";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError, ValidationError } from "../errors.ts";
import { notifyChange } from "../changes/changes.ts";
import { hashPassword } from "../secrets/hash.ts";
import { parseFields, throwIfErrors } from "../validation/fields.ts";
import { recordLinkEvent } from "../webhooks/record-event.ts";
import { findOwnedLink, type Link } from "./load-links.ts";
import { UpdateLinkShape, type UpdateLinkInput } from "./schemas.ts";
import { checkDraft, checkReferences, destinations, resolveEndsAt } from "./validate-link.ts";

/** Applies the sent fields to the caller's link; an empty value clears a field (CONTRACT §4). */
export async function updateLink({ ctx, id, input }: { ctx: Ctx; id: number; input: UpdateLinkInput }): Promise<Link> {
  const now = ctx.now();
  const existing = await findOwnedLink(ctx.db, now, ctx.actor.userId, id);
  if (!existing) throw new NotFoundError("Link");
  const { values: v, errors } = parseFields(UpdateLinkShape, input);
  const endsAt = resolveEndsAt(v, existing.endsAt, now, errors);
  const pick = <T>(sent: T | undefined, stored: T) => (sent === undefined ? stored : sent);
  checkDraft(
    {
      targetType: pick(v.target_type, existing.targetType),
      groups: {
        country: pick(v.country, existing.countryTarget),
        platform: pick(v.platform, existing.platformTarget),
        language: pick(v.language, existing.languageTarget),
        rotation: pick(v.rotation, existing.rotationTarget),
      },
      privacy: pick(v.privacy, existing.privacy),
      hasPrivacyPassword: v.privacy_password === undefined ? existing.hasPrivacyPassword : v.privacy_password !== null,
    },
    errors,
  );
  const aliasChanges = v.alias !== undefined && v.alias !== existing.alias;
  await checkReferences(
    ctx.db,
    ctx.actor.userId,
    {
      spaceId: v.space_id,
      pixelIds: v.pixel_ids,
      alias: aliasChanges && v.alias ? { domainId: existing.domain.id, alias: v.alias, exceptLinkId: id } : undefined,
      urls: destinations(v),
    },
    errors,
  );
  throwIfErrors(errors);

  const [passwordHash, privacyPasswordHash] = await Promise.all([
    v.password ? hashPassword(v.password) : v.password,
    v.privacy_password ? hashPassword(v.privacy_password) : v.privacy_password,
  ]);
  const emptyToNull = <T>(list: T[] | null | undefined) => (list === undefined ? undefined : list?.length ? list : null);
  const changes = {
    url: v.url,
    alias: v.alias,
    title: v.title,
    passwordHash,
    spaceId: v.space_id,
    disabled: v.disabled === undefined ? undefined : v.disabled === 1,
    privacy: v.privacy,
    privacyPasswordHash,
    expirationUrl: v.expiration_url,
    expirationClicks: v.expiration_clicks,
    endsAt,
    targetType: v.target_type,
    countryTarget: emptyToNull(v.country),
    platformTarget: emptyToNull(v.platform),
    languageTarget: emptyToNull(v.language),
    rotationTarget: emptyToNull(v.rotation),
    // A new rotation list starts its round from the beginning.
    ...(v.rotation !== undefined ? { lastRotation: null } : {}),
  };
  const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));

  try {
    return await withTransaction(ctx, async (tx) => {
      const [updated] = await tx.db
        .update(links)
        .set({ ...set, updatedAt: now })
        .where(and(eq(links.id, id), eq(links.userId, tx.actor.userId)))
        .returning({ id: links.id, alias: links.alias, domainId: links.domainId });
      if (!updated) throw new NotFoundError("Link");
      if (v.pixel_ids !== undefined) {
        await tx.db.delete(linkPixels).where(eq(linkPixels.linkId, id));
        if (v.pixel_ids?.length) await tx.db.insert(linkPixels).values(v.pixel_ids.map((pixelId) => ({ linkId: id, pixelId })));
      }
      await notifyChange(tx.db, { kind: "link", id, domainId: updated.domainId, alias: existing.alias });
      if (updated.alias !== existing.alias) await notifyChange(tx.db, { kind: "link", id, domainId: updated.domainId, alias: updated.alias });
      const link = await findOwnedLink(tx.db, now, tx.actor.userId, id);
      if (!link) throw new NotFoundError("Link");
      await recordLinkEvent(tx, "link.updated", link);
      return link;
    });
  } catch (error) {
    if (isUniqueViolation(error, "links_domain_id_alias_key")) throw ValidationError.field("alias", "The alias has already been taken.");
    throw error;
  }
}

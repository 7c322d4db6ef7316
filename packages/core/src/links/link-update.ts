import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { linkPixels, links } from "@shortener/db";
import type { Ctx } from "../context.ts";
import type { FieldErrors } from "../errors.ts";
import { hashPassword } from "../secrets/hash.ts";
import type { parseFields } from "../validation/fields.ts";
import type { Link } from "./link-columns.ts";
import type { UpdateLinkShape } from "./schemas.ts";
import { tagColumns } from "./respell-tags.ts";
import { checkDraft, resolveEndsAt } from "./validate-link.ts";

/**
 * The parts of a link update shared by `updateLink` (one link) and `bulkUpdateLinks` (up to 100 in one
 * transaction): the same rules, the same columns, the same write.
 */
export type UpdateValues = ReturnType<typeof parseFields<typeof UpdateLinkShape>>["values"];

/**
 * The rules that depend on the stored link: the expiration moment (returned: `undefined` unchanged,
 * `null` removed) and the cross-field rules of CONTRACT §4 over sent values and stored ones.
 */
export function checkUpdateOf(existing: Link, v: UpdateValues, now: Date, errors: FieldErrors): Date | null | undefined {
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
  return endsAt;
}

/** The sent secrets hashed (`undefined` unchanged, `null` removed). */
export async function hashSecrets(v: UpdateValues): Promise<{ passwordHash: string | null | undefined; privacyPasswordHash: string | null | undefined }> {
  const [passwordHash, privacyPasswordHash] = await Promise.all([v.password ? hashPassword(v.password) : v.password, v.privacy_password ? hashPassword(v.privacy_password) : v.privacy_password]);
  return { passwordHash, privacyPasswordHash };
}

/** The secrets an update replaces with a new value (the audit log cannot see it in the link: "set" before and after). */
export function secretsSent(v: UpdateValues): string[] {
  return [...(v.password ? ["password"] : []), ...(v.privacy_password ? ["privacy_password"] : [])];
}

/** The columns an update sets: only the sent fields. */
export function changesOf(v: UpdateValues, hashes: Awaited<ReturnType<typeof hashSecrets>>, endsAt: Date | null | undefined): Record<string, unknown> {
  const emptyToNull = <T>(list: T[] | null | undefined) => (list === undefined ? undefined : list?.length ? list : null);
  const changes = {
    url: v.url,
    alias: v.alias,
    title: v.title,
    passwordHash: hashes.passwordHash,
    spaceId: v.space_id,
    disabled: v.disabled === undefined ? undefined : v.disabled === 1,
    privacy: v.privacy,
    privacyPasswordHash: hashes.privacyPasswordHash,
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
    // The preview's fields: an empty value (null) removes one.
    ogTitle: v.og_title,
    ogDescription: v.og_description,
    ogImage: v.og_image,
    // Sent tags replace the link's; an empty value removes them all.
    ...(v.tags !== undefined ? tagColumns(v.tags ?? []) : {}),
    // A new destination has not been checked (CONTRACT §25): its health starts again, and the worker looks soon.
    ...(v.url !== undefined ? healthResetFor(v.url) : {}),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}

/**
 * The health columns of an update that sends `url`: when the url changes, `unchecked` with no reason and
 * no time, due for a check at once; the same url sent again keeps them. Decided in the statement, row by
 * row, so a bulk update resets only the links whose url it changes.
 */
function healthResetFor(url: string): Record<string, SQL> {
  const isSame = sql`${links.url} = ${url}`;
  return {
    health: sql`case when ${isSame} then ${links.health} else 'unchecked' end`,
    healthReason: sql`case when ${isSame} then ${links.healthReason} end`,
    healthCheckedAt: sql`case when ${isSame} then ${links.healthCheckedAt} end`,
    healthDueAt: sql`case when ${isSame} then ${links.healthDueAt} else now() end`,
  };
}

/**
 * Writes the same changes to the caller's links `ids`, and their pixels (when sent), through the
 * transaction `tx`, in one statement each; each written link's key after the write. A link that is
 * no longer the caller's is missing from the answer.
 */
export async function writeLinkUpdate(
  tx: Ctx,
  ids: number[],
  set: Record<string, unknown>,
  pixelIds: number[] | null | undefined,
  now: Date,
): Promise<Array<{ id: number; alias: string; domainId: number }>> {
  const updated = await tx.db
    .update(links)
    .set({ ...set, updatedAt: now })
    .where(and(ids.length === 1 ? eq(links.id, ids[0] ?? 0) : inArray(links.id, ids), eq(links.workspaceId, tx.actor.workspaceId)))
    .returning({ id: links.id, alias: links.alias, domainId: links.domainId });
  const written = updated.map((row) => row.id);
  if (pixelIds !== undefined && written.length) {
    await tx.db.delete(linkPixels).where(inArray(linkPixels.linkId, written));
    if (pixelIds?.length) await tx.db.insert(linkPixels).values(written.flatMap((linkId) => pixelIds.map((pixelId) => ({ linkId, pixelId }))));
  }
  return updated;
}

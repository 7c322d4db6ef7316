import { getTableColumns, sql, type SQL } from "drizzle-orm";
import { linkPixels, links } from "@shortener/db";
import { withTransaction, type Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { emitLocalChange } from "../shared/changes.ts";
import { hashPassword } from "../shared/hash.ts";
import { preparedFor } from "../shared/prepared.ts";
import { randomBase62 } from "../shared/random.ts";
import { parseFields, throwIfErrors } from "../shared/validation.ts";
import type { Link } from "./load-links.ts";
import { linkStatus } from "./status.ts";
import { CreateLinkShape, type CreateLinkInput } from "./schemas.ts";
import { checkDraft, checkReferences, destinations, resolveEndsAt } from "./validate-link.ts";

export const RANDOM_ALIAS_LENGTH = 6;
const RANDOM_ALIAS_ATTEMPTS = 8;

/**
 * Every column a create writes, as a placeholder of the prepared insert (same names as the row). They
 * are bare placeholders (no column encoder: drizzle would run it on null too), so `encodeRow` encodes
 * the values the way drizzle does for a plain insert.
 */
const INSERT_COLUMNS = [
  "userId",
  "domainId",
  "spaceId",
  "alias",
  "url",
  "title",
  "passwordHash",
  "disabled",
  "privacy",
  "privacyPasswordHash",
  "expirationUrl",
  "expirationClicks",
  "endsAt",
  "targetType",
  "countryTarget",
  "platformTarget",
  "languageTarget",
  "rotationTarget",
  "createdAt",
  "updatedAt",
] as const;
type InsertColumn = (typeof INSERT_COLUMNS)[number];
const INSERT_PLACEHOLDERS = Object.fromEntries(INSERT_COLUMNS.map((c) => [c, sql`${sql.placeholder(c)}`])) as Record<InsertColumn, SQL>;

function encodeRow(row: Record<InsertColumn, unknown>): Record<string, unknown> {
  const columns = getTableColumns(links);
  return Object.fromEntries(INSERT_COLUMNS.map((c) => [c, row[c] === null ? null : columns[c].mapToDriverValue(row[c])]));
}

/**
 * Creates a link (CONTRACT §4). Every failing field is reported at once. The unique index on
 * (domain, alias) decides between concurrent creates of one alias: one wins, the others get a 422.
 */
export async function createLink({ ctx, input }: { ctx: Ctx; input: CreateLinkInput }): Promise<Link> {
  const { values: v, errors } = parseFields(CreateLinkShape, input);
  const now = ctx.now();
  const endsAt = resolveEndsAt(v, null, now, errors);
  checkDraft(
    {
      targetType: v.target_type ?? 0,
      groups: { country: v.country ?? null, platform: v.platform ?? null, language: v.language ?? null, rotation: v.rotation ?? null },
      privacy: v.privacy ?? 0,
      hasPrivacyPassword: v.privacy_password !== undefined,
    },
    errors,
  );
  const refs = await checkReferences(
    ctx.db,
    ctx.actor.userId,
    {
      domainId: v.domain_id,
      spaceId: v.space_id,
      pixelIds: v.pixel_ids,
      alias: v.alias && v.domain_id ? { domainId: v.domain_id, alias: v.alias } : undefined,
      urls: destinations(v),
    },
    errors,
  );
  throwIfErrors(errors);

  const [passwordHash, privacyPasswordHash] = await Promise.all([
    v.password ? hashPassword(v.password) : null,
    v.privacy_password ? hashPassword(v.privacy_password) : null,
  ]);
  const domainId = v.domain_id as number;
  const row = {
    userId: ctx.actor.userId,
    domainId,
    spaceId: v.space_id ?? null,
    url: v.url as string,
    title: v.title ?? null,
    passwordHash,
    disabled: v.disabled === 1,
    privacy: v.privacy ?? 0,
    privacyPasswordHash,
    expirationUrl: v.expiration_url ?? null,
    expirationClicks: v.expiration_clicks ?? 0,
    endsAt: endsAt ?? null,
    targetType: v.target_type ?? 0,
    countryTarget: v.country?.length ? v.country : null,
    platformTarget: v.platform?.length ? v.platform : null,
    languageTarget: v.language?.length ? v.language : null,
    rotationTarget: v.rotation?.length ? v.rotation : null,
    createdAt: now,
    updatedAt: now,
  };

  // With pixels, the link and its pixel rows commit together; without, one insert is atomic on its own.
  // The insert is one prepared statement. It announces nothing: a notifying commit is serialised in
  // PostgreSQL, and the visitor side caches "no such link" for under a second instead (ADR 0012).
  const write = async (db: Ctx["db"]) => {
    const insert = preparedFor(db, "links_create", () =>
      db
        .insert(links)
        .values(INSERT_PLACEHOLDERS)
        .onConflictDoNothing({ target: [links.domainId, links.alias] })
        .returning(),
    );
    let inserted: typeof links.$inferSelect | undefined;
    for (let attempt = 0; !inserted; attempt++) {
      let alias = v.alias;
      if (!alias) {
        if (attempt >= RANDOM_ALIAS_ATTEMPTS) throw new Error("no free random alias after several attempts");
        alias = randomBase62(RANDOM_ALIAS_LENGTH + Math.floor(attempt / 2));
      }
      const [created] = await insert.execute(encodeRow({ ...row, alias }));
      inserted = created;
      if (!inserted && v.alias) throw ValidationError.field("alias", "The alias has already been taken.");
    }
    const linkId = inserted.id;
    if (v.pixel_ids?.length) await db.insert(linkPixels).values(v.pixel_ids.map((pixelId) => ({ linkId, pixelId })));
    emitLocalChange({ kind: "link", id: linkId, domainId, alias: inserted.alias });
    return inserted;
  };
  const inserted = v.pixel_ids?.length ? await withTransaction(ctx, (tx) => write(tx.db)) : await write(ctx.db);
  const { passwordHash: storedPassword, privacyPasswordHash: storedPrivacy, importKey: _importKey, domainId: _domainId, spaceId: _spaceId, ...rest } = inserted;
  if (!refs.domain) throw new Error("domain vanished");
  return {
    ...rest,
    clicks: Number(rest.clicks),
    hasPassword: storedPassword !== null,
    hasPrivacyPassword: storedPrivacy !== null,
    status: linkStatus(inserted, now),
    space: refs.space ?? null,
    domain: refs.domain,
    pixels: refs.pixels,
  };
}


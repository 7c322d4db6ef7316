import { getTableColumns, sql, type SQL } from "drizzle-orm";
import { linkPixels, links, preparedFor } from "@shortener/db";
import { linkAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { emitLocalChange } from "../changes/changes.ts";
import { hashPassword } from "../secrets/hash.ts";
import { parseFields, throwIfErrors } from "../validation/fields.ts";
import { randomAlias } from "./alias.ts";
import { classifyAliasConflict } from "./alias-conflict.ts";
import { draftNewLink } from "./draft-link.ts";
import { recordLinkEvent } from "../webhooks/record-event.ts";
import { LINK_INSERT_COLUMNS, type Link, type LinkInsertColumn } from "./link-columns.ts";
import { linkStatus } from "../expiration/link-status.ts";
import { CreateLinkShape, type CreateLinkInput } from "./schemas.ts";
import { checkReferences, destinations } from "./validate-link.ts";

/**
 * Every column a create writes (the one list, `LINK_INSERT_COLUMNS`, but the import key), as a placeholder of the prepared insert (same names as the row). They
 * are bare placeholders (no column encoder: drizzle would run it on null too), so `encodeRow` encodes
 * the values the way drizzle does for a plain insert.
 */
const INSERT_COLUMNS = (Object.keys(LINK_INSERT_COLUMNS) as LinkInsertColumn[]).filter((c): c is Exclude<LinkInsertColumn, "importKey"> => c !== "importKey");
type InsertColumn = (typeof INSERT_COLUMNS)[number];
const INSERT_PLACEHOLDERS = Object.fromEntries(INSERT_COLUMNS.map((c) => [c, sql`${sql.placeholder(c)}`])) as Record<InsertColumn, SQL>;

function encodeRow(row: Record<InsertColumn, unknown>): Record<string, unknown> {
  const columns = getTableColumns(links);
  return Object.fromEntries(INSERT_COLUMNS.map((c) => [c, row[c] === null ? null : columns[c].mapToDriverValue(row[c])]));
}

/**
 * Creates a link (CONTRACT §4). Every failing field is reported at once. The unique index on
 * (domain, alias) decides between concurrent creates of one alias: one wins, the others get a 422.
 * Its audit entry (`link.created`) commits with it.
 */
export async function createLink({ ctx, input }: { ctx: Ctx; input: CreateLinkInput }): Promise<Link> {
  const { values: v, errors } = parseFields(CreateLinkShape, input);
  const now = ctx.now();
  const draft = draftNewLink(v, now, errors);
  // Whether a webhook wants this create (asked by the domain check's statement): then the link and its event commit together.
  const refs = await checkReferences(
    ctx.db,
    ctx.actor.workspaceId,
    {
      domainId: v.domain_id,
      spaceId: v.space_id,
      pixelIds: v.pixel_ids,
      alias: v.alias && v.domain_id ? { domainId: v.domain_id, alias: v.alias } : undefined,
      urls: destinations(v),
      announce: ctx.events ? "link.created" : undefined,
    },
    errors,
  );
  const isAnnounced = refs.isAnnounced === true;
  throwIfErrors(errors);

  const [passwordHash, privacyPasswordHash] = await Promise.all([draft.password ? hashPassword(draft.password) : null, draft.privacyPassword ? hashPassword(draft.privacyPassword) : null]);
  const { password: _password, privacyPassword: _privacyPassword, pixelIds, ...values } = draft;
  const { domainId } = values;
  const row = { ...values, workspaceId: ctx.actor.workspaceId, passwordHash, privacyPasswordHash, createdAt: now, updatedAt: now };

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
      const [created] = await insert.execute(encodeRow({ ...row, alias: draft.alias ?? randomAlias(attempt) }));
      inserted = created;
      if (inserted) break;
      const conflict = classifyAliasConflict({ isChosen: draft.alias !== null, attempt, url: draft.url });
      if (conflict.kind === "error") throw draft.alias !== null ? ValidationError.field("alias", conflict.message) : new Error("no free random alias after several attempts");
    }
    const linkId = inserted.id;
    if (pixelIds.length) await db.insert(linkPixels).values(pixelIds.map((pixelId) => ({ linkId, pixelId })));
    emitLocalChange({ kind: "link", id: linkId, domainId, alias: inserted.alias });
    return inserted;
  };
  const toLink = (inserted: typeof links.$inferSelect): Link => {
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
  };
  // The link, its pixels, its event and its audit entry commit together (CONTRACT §24).
  return withTransaction(ctx, async (tx) => {
    const link = toLink(await write(tx.db));
    if (isAnnounced) await recordLinkEvent(tx, "link.created", link);
    await recordAudit(tx, { action: "link.created", objectType: "link", objectId: link.id, after: linkAuditView(link) });
    return link;
  });
}

import { getTableColumns, sql, type SQL } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import { auditLog, linkPixels, links, preparedFor, type Db } from "@shortener/db";
import { linkAuditView, type LinkAuditSource } from "../audit/audit-views.ts";
import { auditActorOf, auditChanges, recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { emitLocalChange } from "../changes/changes.ts";
import { hashPassword } from "../secrets/hash.ts";
import { createFieldsParser, throwIfErrors } from "../validation/fields.ts";
import { randomAlias } from "./alias.ts";
import { classifyAliasConflict } from "./alias-conflict.ts";
import { draftNewLink } from "./draft-link.ts";
import { recordLinkEvent } from "../webhooks/record-event.ts";
import { LINK_INSERT_COLUMNS, type Link, type LinkInsertColumn } from "./link-columns.ts";
import { linkStatus } from "../expiration/link-status.ts";
import { CreateLinkShape, type CreateLinkInput } from "./schemas.ts";
import { respellTags, tagColumns } from "./respell-tags.ts";
import { checkReferences, destinations } from "./validate-link.ts";

/**
 * Every column a create writes (the one list, `LINK_INSERT_COLUMNS`, but the import key), as a placeholder of the prepared insert (same names as the row). They
 * are bare placeholders (no column encoder: drizzle would run it on null too), so `encodeRow` encodes
 * the values the way drizzle does for a plain insert.
 */
const INSERT_COLUMNS = (Object.keys(LINK_INSERT_COLUMNS) as LinkInsertColumn[]).filter((c): c is Exclude<LinkInsertColumn, "importKey"> => c !== "importKey");
type InsertColumn = (typeof INSERT_COLUMNS)[number];
const INSERT_PLACEHOLDERS = Object.fromEntries(INSERT_COLUMNS.map((c) => [c, sql`${sql.placeholder(c)}`])) as Record<InsertColumn, SQL>;

const COLUMNS = getTableColumns(links);

/**
 * The row the audited insert answers with: every column of the CTE `l` by its SQL name, decoded by its
 * column as a plain insert's `returning()` decodes it. `select()` from the CTE would map each column
 * through drizzle's aliasing proxy, a trap per column and row.
 */
const RETURNED = Object.fromEntries(Object.entries(COLUMNS).map(([key, column]) => [key, sql.raw(`"l"."${column.keyAsName ? toSnakeCase(column.name) : column.name}"`).mapWith(column)])) as {
  [K in keyof typeof COLUMNS]: SQL<(typeof links.$inferSelect)[K]>;
};

/** The placeholders' values of a row with `alias`, encoded as drizzle encodes a plain insert's (null stays null). */
function encodeRow(row: Record<Exclude<InsertColumn, "alias">, unknown>, alias: string): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const c of INSERT_COLUMNS) {
    const value = c === "alias" ? alias : row[c];
    params[c] = value === null ? null : COLUMNS[c].mapToDriverValue(value);
  }
  return params;
}

/**
 * The link and its `link.created` entry in one prepared statement (a data-modifying CTE): one round trip
 * and no transaction, as fast as the create was before the audit log (docs/adr/0045-audit-log.md). The
 * entry's changes are built before the insert, with the alias of that attempt (a random one is drawn
 * here, not by the database), and sent once, as one parameter. A taken alias inserts neither
 * (`on conflict do nothing`): no row comes back.
 */
function insertAudited(db: Db) {
  return preparedFor(db, "links_create_audited", () => {
    const link = db.$with("l").as(
      db
        .insert(links)
        .values(INSERT_PLACEHOLDERS)
        .onConflictDoNothing({ target: [links.domainId, links.alias] })
        .returning(),
    );
    // The CTE's columns by their SQL names (drizzle would name them by their keys).
    const inserted = { workspaceId: sql`"l"."workspace_id"`, id: sql`"l"."id"`, createdAt: sql`"l"."created_at"` };
    const entry = db.$with("a").as(
      db
        .insert(auditLog)
        .select((qb) =>
          qb
            .select({
              // insert … select takes every column, in order: the id from its sequence as a default would.
              id: sql<number>`nextval('audit_log_id_seq')`.as("id"),
              workspaceId: sql<number>`${inserted.workspaceId}`.as("workspace_id"),
              actorUserId: sql<number | null>`${sql.placeholder("audit_user_id")}::integer`.as("actor_user_id"),
              actorKeyId: sql<number | null>`${sql.placeholder("audit_key_id")}::integer`.as("actor_key_id"),
              actorSessionId: sql<number | null>`${sql.placeholder("audit_session_id")}::integer`.as("actor_session_id"),
              action: sql<string>`'link.created'`.as("action"),
              objectType: sql<string>`'link'`.as("object_type"),
              objectId: sql<string>`${inserted.id}::text`.as("object_id"),
              changes: sql<unknown>`${sql.placeholder("audit_changes")}::jsonb`.as("changes"),
              clientGroup: sql<string | null>`${sql.placeholder("audit_client_group")}::text`.as("client_group"),
              createdAt: sql<Date>`${inserted.createdAt}`.as("created_at"),
            })
            .from(link),
        )
        .returning({ id: auditLog.id }),
    );
    return db.with(link, entry).select(RETURNED).from(link);
  });
}

/** The fields of a create: those sent are parsed, the outcome of each absent one was computed once. */
const parseCreateFields = createFieldsParser(CreateLinkShape);

/**
 * Creates a link (CONTRACT §4). Every failing field is reported at once. The unique index on
 * (domain, alias) decides between concurrent creates of one alias: one wins, the others get a 422.
 * Its audit entry (`link.created`) commits with it.
 */
export async function createLink({ ctx, input }: { ctx: Ctx; input: CreateLinkInput }): Promise<Link> {
  const { values: v, errors } = parseCreateFields(input);
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

  // No await where there is nothing to wait for: most creates send neither password nor tags.
  const [passwordHash, privacyPasswordHash] =
    draft.password || draft.privacyPassword
      ? await Promise.all([draft.password ? hashPassword(draft.password) : null, draft.privacyPassword ? hashPassword(draft.privacyPassword) : null])
      : [null, null];
  const { password: _password, privacyPassword: _privacyPassword, pixelIds, tags: sentTags, ...values } = draft;
  const { domainId } = values;
  const tags = sentTags.length ? await respellTags(ctx.db, ctx.actor.workspaceId, sentTags) : [];
  const row = { ...values, ...tagColumns(tags), workspaceId: ctx.actor.workspaceId, passwordHash, privacyPasswordHash, createdAt: now, updatedAt: now };

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
      const [created] = await insert.execute(encodeRow(row, draft.alias ?? randomAlias(attempt)));
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
    const {
      passwordHash: storedPassword,
      privacyPasswordHash: storedPrivacy,
      importKey: _importKey,
      domainId: _domainId,
      spaceId: _spaceId,
      tagKeys: _tagKeys,
      healthDueAt: _healthDueAt,
      ...rest
    } = inserted;
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
  // Without pixels and webhook event, the link and its audit entry are one statement (`insertAudited`).
  if (!pixelIds.length && !isAnnounced) {
    const view: LinkAuditSource = {
      alias: draft.alias ?? "",
      url: values.url,
      title: values.title,
      targetType: values.targetType,
      countryTarget: values.countryTarget,
      platformTarget: values.platformTarget,
      languageTarget: values.languageTarget,
      rotationTarget: values.rotationTarget,
      disabled: values.disabled,
      privacy: values.privacy,
      hasPassword: passwordHash !== null,
      hasPrivacyPassword: privacyPasswordHash !== null,
      expirationUrl: values.expirationUrl,
      expirationClicks: values.expirationClicks,
      endsAt: values.endsAt,
      tags,
      ogTitle: values.ogTitle,
      ogDescription: values.ogDescription,
      ogImage: values.ogImage,
      domain: { id: domainId },
      space: refs.space ?? null,
      pixels: [],
    };
    const actor = auditActorOf(ctx);
    const changes = auditChanges(null, linkAuditView(view));
    const insert = insertAudited(ctx.db);
    for (let attempt = 0; ; attempt++) {
      const alias = draft.alias ?? randomAlias(attempt);
      // A random alias is base62, which no secret pattern matches: the entry holds it as drawn.
      if (draft.alias === null) changes.alias = { after: alias };
      const params = encodeRow(row, alias);
      params.audit_user_id = actor.userId;
      params.audit_key_id = actor.keyId;
      params.audit_session_id = actor.sessionId;
      params.audit_client_group = actor.clientGroup;
      params.audit_changes = JSON.stringify(changes);
      const [created] = await insert.execute(params);
      if (created) {
        emitLocalChange({ kind: "link", id: created.id, domainId, alias: created.alias });
        return toLink(created);
      }
      const conflict = classifyAliasConflict({ isChosen: draft.alias !== null, attempt, url: draft.url });
      if (conflict.kind === "error") throw draft.alias !== null ? ValidationError.field("alias", conflict.message) : new Error("no free random alias after several attempts");
    }
  }
  // Otherwise the link, its pixels, its event and its audit entry commit together (CONTRACT §24).
  return withTransaction(ctx, async (tx) => {
    const link = toLink(await write(tx.db));
    if (isAnnounced) await recordLinkEvent(tx, "link.created", link);
    await recordAudit(tx, { action: "link.created", objectType: "link", objectId: link.id, after: linkAuditView(link) });
    return link;
  });
}

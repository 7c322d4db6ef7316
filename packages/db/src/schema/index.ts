import { sql } from "drizzle-orm";
import type { WebhookEventType } from "@shortener/vocabulary";
import { type AnyPgColumn, bigint, bigserial, boolean, check, date, index, integer, json, jsonb, pgTable, primaryKey, serial, smallint, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

const timestamps = {
  createdAt: timestamp({ withTimezone: true, mode: "date" }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true, mode: "date" }).notNull().defaultNow(),
};

/** Process-wide settings that must be shared by every process on one database (e.g. the cookie secret). */
export const settings = pgTable("settings", {
  key: text().primaryKey(),
  value: text().notNull(),
});

export const users = pgTable(
  "users",
  {
    id: serial().primaryKey(),
    email: text().notNull(),
    name: text().notNull(),
    role: text({ enum: ["admin", "user"] })
      .notNull()
      .default("user"),
    /** The dashboard's sign-in password (scrypt, as `hashPassword` writes it); null: none set yet (CONTRACT §19). */
    passwordHash: text(),
    /** The OpenID Connect identity (`issuer|sub`) the user signs in with; null: never signed in with SSO. */
    oidcSubject: text(),
    ...timestamps,
  },
  (t) => [uniqueIndex("users_email_key").on(t.email), uniqueIndex("users_oidc_subject_key").on(t.oidcSubject)],
);

/** A member's role in a workspace (CONTRACT §24), weakest first: each has every right of the ones before it. */
export const WORKSPACE_ROLES = ["viewer", "editor", "admin", "owner"] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

/**
 * Workspaces own everything a user made before CONTRACT §24: links, domains, spaces, pixels, webhooks,
 * imports, API keys and statistics. Every user has a personal one (`personal_user_id`), deleted with
 * them; migration 0022 made each existing user's with the user's own id, so owned rows kept their
 * owner column's values (renamed `workspace_id`) and no row was rewritten (docs/adr/0044-workspaces.md).
 */
export const workspaces = pgTable(
  "workspaces",
  {
    id: serial().primaryKey(),
    name: text().notNull(),
    /** The user whose personal workspace this is; null: a shared workspace. */
    personalUserId: integer().references((): AnyPgColumn => users.id, { onDelete: "cascade" }),
    /** Whether members must sign in to the dashboard with single sign-on (OpenID Connect) to act here. */
    requireSso: boolean().notNull().default(false),
    ...timestamps,
  },
  (t) => [uniqueIndex("workspaces_personal_user_id_key").on(t.personalUserId)],
);

export const workspaceMembers = pgTable(
  "workspace_members",
  {
    workspaceId: integer()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text({ enum: WORKSPACE_ROLES }).notNull(),
    createdAt: timestamps.createdAt,
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.userId] }),
    index("workspace_members_user_id_idx").on(t.userId),
    check("workspace_members_role_check", sql`${t.role} in ('viewer', 'editor', 'admin', 'owner')`),
  ],
);

/**
 * One-time invitation links (CONTRACT §24): the token is shown once and stored as its SHA-256 hash. An
 * invitation is used up when accepted (`accepted_at`), and refused after `expires_at`.
 */
export const workspaceInvitations = pgTable(
  "workspace_invitations",
  {
    id: serial().primaryKey(),
    workspaceId: integer()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    tokenHash: text().notNull(),
    role: text({ enum: WORKSPACE_ROLES }).notNull(),
    /** Whom it was sent to, when it was mailed; null: a link handed over by other means. */
    email: text(),
    createdBy: integer().references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamps.createdAt,
    expiresAt: timestamp({ withTimezone: true, mode: "date" }).notNull(),
    acceptedAt: timestamp({ withTimezone: true, mode: "date" }),
    acceptedBy: integer().references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("workspace_invitations_token_hash_key").on(t.tokenHash),
    index("workspace_invitations_workspace_id_id_idx").on(t.workspaceId, t.id),
    check("workspace_invitations_role_check", sql`${t.role} in ('viewer', 'editor', 'admin', 'owner')`),
  ],
);

/**
 * A value an audit entry records: what core's audit views hold (the API's field values), secrets as
 * "[redacted]". Spelled out, not a recursive JSON type: the typed client publishes it (its printer wants
 * plain, finite data types).
 */
export type AuditValue = string | number | boolean | null | string[] | number[] | Array<{ key?: string; value: string }>;

/**
 * The audit log (CONTRACT §24): one entry per change, written in the change's transaction. No foreign
 * keys (entries outlive the workspace, user or key they name), and a trigger (migration 0022) refuses
 * UPDATE, DELETE and TRUNCATE unless the retention job set `shortener.audit_retention` for its own
 * transaction. `changes`: the changed fields, `{ field: { before, after } }`, secrets as "[redacted]".
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    workspaceId: integer().notNull(),
    actorUserId: integer(),
    actorKeyId: integer(),
    actorSessionId: integer(),
    action: text().notNull(),
    objectType: text().notNull(),
    objectId: text(),
    changes: jsonb().$type<Record<string, { before?: AuditValue; after?: AuditValue }>>(),
    clientGroup: text(),
    createdAt: timestamp({ withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("audit_log_workspace_id_id_idx").on(t.workspaceId, t.id), index("audit_log_created_at_idx").on(t.createdAt)],
);

/**
 * Dashboard sessions (CONTRACT §19): the cookie carries a random token, stored here as its SHA-256 hash
 * only, with the CSRF token mutations must echo. Revoking is deleting the row ("sign out everywhere":
 * every row of the user); a session lives 30 days from sign-in. Its user agent and last use let its
 * owner tell their devices apart and sign one out. A session opened with an API key keeps that key
 * (`api_key_id`) and its scopes, and ends with it (docs/adr/0033-session-bounds.md).
 */
export const sessions = pgTable(
  "sessions",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text().notNull(),
    csrfToken: text().notNull(),
    createdAt: timestamps.createdAt,
    expiresAt: timestamp({ withTimezone: true, mode: "date" }).notNull(),
    /** The browser's User-Agent at sign-in, cleaned and cut to 300 characters, to tell devices apart. */
    userAgent: text(),
    /** When the session was last used, written at most once a minute. */
    lastSeenAt: timestamp({ withTimezone: true, mode: "date" }),
    /** The API key the session was opened with; null: opened with the password. Deleting the key deletes the session. */
    apiKeyId: integer().references((): AnyPgColumn => apiKeys.id, { onDelete: "cascade" }),
    /** What the session may do: the opening key's scopes; null: every scope (a password, or a key of §9). */
    scopes: text().array(),
    /** Whether the session was opened through single sign-on (OpenID Connect): only those act in a workspace that requires it. */
    isSso: boolean().notNull().default(false),
    /** The workspace the session acts in (switched in the dashboard); null: the user's personal workspace. */
    workspaceId: integer().references((): AnyPgColumn => workspaces.id, { onDelete: "set null" }),
  },
  (t) => [uniqueIndex("sessions_token_hash_key").on(t.tokenHash), index("sessions_user_id_idx").on(t.userId), index("sessions_api_key_id_idx").on(t.apiKeyId)],
);

/**
 * API keys are stored only as a SHA-256 hash of the whole token; `prefix` is for display. A user's key of
 * CONTRACT §9 has no name and no scopes (full scope); a named key (§17) has both, and may expire.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The workspace the key acts in (CONTRACT §24); `user_id` is who made it, whose role there it carries at most. */
    workspaceId: integer()
      .notNull()
      .references((): AnyPgColumn => workspaces.id, { onDelete: "cascade" }),
    keyHash: text().notNull(),
    prefix: text().notNull(),
    /** Named keys only (CONTRACT §17); null for the user's full-scope key of §9. */
    name: text(),
    /** The scopes of a named key; null: every scope (the keys of §9). */
    scopes: text().array(),
    /** A named key stops working at this moment; null: never. */
    expiresAt: timestamp({ withTimezone: true, mode: "date" }),
    createdAt: timestamps.createdAt,
    lastUsedAt: timestamp({ withTimezone: true, mode: "date" }),
    revokedAt: timestamp({ withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_key").on(t.keyHash),
    index("api_keys_user_id_idx").on(t.userId),
    index("api_keys_workspace_id_idx").on(t.workspaceId),
    check("api_keys_named_scoped", sql`(${t.name} is null) = (${t.scopes} is null)`),
  ],
);

export const domains = pgTable(
  "domains",
  {
    id: serial().primaryKey(),
    workspaceId: integer()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    indexPage: text(),
    notFoundPage: text(),
    /** When the owner proved the host (CONTRACT §14); null: unverified, the domain takes links but does not serve. */
    verifiedAt: timestamp({ withTimezone: true, mode: "date" }),
    /** The random part of the TXT record an unverified domain's owner publishes; null once verified. */
    verificationToken: text(),
    /** App links (CONTRACT §25): served as `/.well-known/apple-app-site-association`, JSON text (an object), at most 64 KiB; null: not set. */
    appleAppSiteAssociation: text(),
    /** App links (CONTRACT §25): served as `/.well-known/assetlinks.json`, JSON text (an array), at most 64 KiB; null: not set. */
    assetLinks: text(),
    ...timestamps,
  },
  (t) => [
    // A name is served by at most one (verified) domain; an unproven claim blocks no one else's (docs/adr/0016).
    uniqueIndex("domains_name_key")
      .on(t.name)
      .where(sql`${t.verifiedAt} is not null`),
    uniqueIndex("domains_workspace_id_name_key").on(t.workspaceId, t.name),
    index("domains_workspace_id_id_idx").on(t.workspaceId, t.id),
    index("domains_name_trgm_idx").using("gin", sql`${t.name} gin_trgm_ops`),
  ],
);

export const spaces = pgTable(
  "spaces",
  {
    id: serial().primaryKey(),
    workspaceId: integer()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    color: smallint().notNull().default(1),
    ...timestamps,
  },
  (t) => [uniqueIndex("spaces_workspace_id_name_key").on(t.workspaceId, t.name), index("spaces_workspace_id_id_idx").on(t.workspaceId, t.id)],
);

export const pixels = pgTable(
  "pixels",
  {
    id: serial().primaryKey(),
    workspaceId: integer()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    type: text().notNull(),
    value: text().notNull(),
    ...timestamps,
  },
  (t) => [index("pixels_workspace_id_id_idx").on(t.workspaceId, t.id)],
);

/** One targeting entry as stored: `key` is absent for rotation entries. */
/** A targeting entry; `weight` (1–100) only on rotation entries (weighted A/B, CONTRACT §25). */
export type TargetEntry = { key?: string; value: string; weight?: number };

/**
 * Links. `clicks` is deliberately in no index: a counter raised on every click batch and every visit to a
 * click-limited link must stay a HOT update (no index entries written, no index bloat), and the table is
 * stored with fillfactor 90 to leave room for them (migration 0006, docs/adr/0014-click-writes.md).
 * `sort_by=clicks` sorts a user's links instead of reading an index.
 */
export const links = pgTable(
  "links",
  {
    id: serial().primaryKey(),
    workspaceId: integer()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    domainId: integer()
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    spaceId: integer().references(() => spaces.id, { onDelete: "set null" }),
    alias: text().notNull(),
    url: text().notNull(),
    title: text(),
    passwordHash: text(),
    disabled: boolean().notNull().default(false),
    privacy: smallint().notNull().default(0),
    privacyPasswordHash: text(),
    expirationUrl: text(),
    expirationClicks: integer().notNull().default(0),
    endsAt: timestamp({ withTimezone: true, mode: "date" }),
    targetType: smallint().notNull().default(0),
    countryTarget: jsonb().$type<TargetEntry[]>(),
    platformTarget: jsonb().$type<TargetEntry[]>(),
    languageTarget: jsonb().$type<TargetEntry[]>(),
    rotationTarget: jsonb().$type<TargetEntry[]>(),
    lastRotation: integer(),
    clicks: bigint({ mode: "number" }).notNull().default(0),
    /** How many of `clicks` were carried over from another service by an import (CONTRACT §23); 0 for links made here. */
    importedClicks: bigint({ mode: "number" }).notNull().default(0),
    /** The link's tags as written (CONTRACT §25; docs/link-features.md): at most 20, no two alike but for case. */
    tags: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** `tags` lower-cased: what the `tag` filter and the tag counts match (case-insensitive), under a GIN index. */
    tagKeys: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Open Graph preview (CONTRACT §25; docs/link-features.md): what link-preview bots are shown instead of the redirect. Null: not set. */
    ogTitle: text(),
    ogDescription: text(),
    /** An http(s) URL of the preview image. */
    ogImage: text(),
    /** Set by the importer: makes a resumed import idempotent per row. */
    importKey: text(),
    /**
     * The destination's health as the worker last found it (CONTRACT §25, docs/link-features.md): `ok`,
     * `broken` or `unchecked` (never looked at, the url changed since, or not checkable: a private address).
     */
    health: text({ enum: ["ok", "broken", "unchecked"] })
      .notNull()
      .default("unchecked"),
    /** Why it is broken (`HTTP 404`, `timeout`, `DNS`, `TLS`, …) or why it is unchecked; null when ok or never looked at. */
    healthReason: text(),
    /** When the worker last looked at the destination; null: never, or not since the url changed. */
    healthCheckedAt: timestamp({ withTimezone: true, mode: "date" }),
    /** When the worker looks next (its queue): a day after a look, at once for a new link or a changed url. */
    healthDueAt: timestamp({ withTimezone: true, mode: "date" }).notNull().defaultNow(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("links_domain_id_alias_key").on(t.domainId, t.alias),
    // Only imported links have an import key: the others (every create through the API) stay out of it,
    // one index entry fewer a create. The import's `on conflict do nothing` and `import_key = any(…)` use it.
    uniqueIndex("links_import_key_key")
      .on(t.importKey)
      .where(sql`${t.importKey} is not null`),
    index("links_workspace_id_id_idx").on(t.workspaceId, t.id),
    index("links_workspace_id_alias_id_idx").on(t.workspaceId, t.alias, t.id),
    index("links_workspace_id_url_id_idx").on(t.workspaceId, t.url, t.id),
    index("links_workspace_id_title_id_idx").on(t.workspaceId, t.title, t.id),
    // By domain: the unique (domain_id, alias) index serves it. Most links have no space and no title:
    // those indexes leave them out (a filter or search on them implies a value). docs/adr/0012.
    index("links_space_id_idx")
      .on(t.spaceId)
      .where(sql`${t.spaceId} is not null`),
    index("links_alias_trgm_idx").using("gin", sql`${t.alias} gin_trgm_ops`),
    index("links_url_trgm_idx").using("gin", sql`${t.url} gin_trgm_ops`),
    index("links_title_trgm_idx")
      .using("gin", sql`${t.title} gin_trgm_ops`)
      .where(sql`${t.title} is not null`),
    // The `tag` filter (`tag_keys && $tags`); links without tags are left out (docs/adr/0051-tags.md).
    index("links_tag_keys_idx")
      .using("gin", t.tagKeys)
      .where(sql`${t.tagKeys} <> '{}'::text[]`),
    // The health checker's queue, the links due first; a disabled link is not checked (docs/adr/0054-destination-health.md).
    index("links_health_due_at_idx")
      .on(t.healthDueAt)
      .where(sql`not ${t.disabled}`),
    // The `health=broken` filter: broken links are few, and this index holds only them.
    index("links_health_broken_idx")
      .on(t.workspaceId, t.id)
      .where(sql`${t.health} = 'broken'`),
    check("links_health_check", sql`${t.health} in ('ok', 'broken', 'unchecked')`),
  ],
);

export const linkPixels = pgTable(
  "link_pixels",
  {
    linkId: integer()
      .notNull()
      .references(() => links.id, { onDelete: "cascade" }),
    pixelId: integer()
      .notNull()
      .references(() => pixels.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.linkId, t.pixelId] }), index("link_pixels_pixel_id_idx").on(t.pixelId)],
);

/**
 * Raw clicks. Stats read the daily rollups instead, so raw clicks may be dropped. Written in batches and never
 * updated, so it carries no key of its own and no foreign key: the per-row key check cost more than the
 * insert. A batch locks its links (`for key share`) instead, once per link, and a statement-level
 * trigger on `links` deletes the clicks of deleted links (migration 0005, docs/adr/0014-click-writes.md).
 *
 * A row stands for `count` clicks that share their link, their second and every recorded trait: the
 * visitor side adds identical clicks up in memory before it writes them (docs/adr/0015-click-groups.md).
 * `created_at` is the first of them; the others came within the same second. Rows from before that
 * change have `count` 1.
 *
 * Partitioned by UTC month of `created_at` (`PARTITION BY RANGE`, migration 0015), which drizzle cannot
 * say: partitions `clicks_YYYY_MM` and `clicks_default` are made by the migration and by core's
 * `ensureClickPartitions`, and dropped past CLICK_RETENTION_DAYS by `dropExpiredClickPartitions`
 * (docs/adr/0025-clicks-partitioned-by-month.md). drizzle-kit compares columns and indexes only, and
 * these match the parent's.
 */
export const clicks = pgTable(
  "clicks",
  {
    linkId: integer().notNull(),
    createdAt: timestamp({ withTimezone: true, mode: "date" }).notNull().defaultNow(),
    country: text(),
    platform: text(),
    browser: text(),
    device: text(),
    language: text(),
    referrer: text(),
    count: integer().notNull().default(1),
  },
  (t) => [index("clicks_link_id_created_at_idx").on(t.linkId, t.createdAt)],
);

/** The dimensions a click is rolled up by (docs/adr/0011-stats-rollups.md). */
export const ROLLUP_DIMENSIONS = ["clicks", "clicks_hour", "country", "platform", "browser", "device", "language", "referrer", "unique", "bots", "bots_hour", "imported", "variant"] as const;
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/**
 * Per-link daily rollups of `clicks`, kept in the same transaction as the click insert (core's
 * `recordClicks`), so stats never scan raw clicks. One row per (link, dimension, UTC day, value):
 * `clicks` has the value '' (the day's total), `clicks_hour` the UTC hour '00'–'23', the others the
 * click's value with '' for unknown. `imported` (value '') counts how many of the day's `clicks` were
 * carried over from another service by an import (CONTRACT §23, docs/adr/0049-live-migration.md): they
 * are in `clicks` too, never in `unique`, `bots` or the other dimensions.
 */
export const linkStatsDaily = pgTable(
  "link_stats_daily",
  {
    linkId: integer()
      .notNull()
      .references(() => links.id, { onDelete: "cascade" }),
    dimension: text({ enum: ROLLUP_DIMENSIONS }).notNull(),
    day: date({ mode: "string" }).notNull(),
    value: text().notNull(),
    count: bigint({ mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.linkId, t.dimension, t.day, t.value] }),
    check(
      "link_stats_daily_dimension_check",
      sql`${t.dimension} in ('clicks', 'clicks_hour', 'country', 'platform', 'browser', 'device', 'language', 'referrer', 'unique', 'bots', 'bots_hour', 'imported', 'variant')`,
    ),
  ],
);

/** The dimensions of an account's daily rollups: a link's, without the hours (its clicks per link are `account_link_daily`). */
export const ACCOUNT_ROLLUP_DIMENSIONS = ["clicks", "country", "platform", "browser", "device", "language", "referrer", "unique", "bots", "imported"] as const;
export type AccountRollupDimension = (typeof ACCOUNT_ROLLUP_DIMENSIONS)[number];

/**
 * Per-workspace daily rollups (CONTRACT §21, account-wide statistics), kept in the same transaction as
 * the links' rollups (core's `recordClicks`), so an account's statistics read a few rows a day whatever
 * its number of links. Same rules as `link_stats_daily`. Keyed by the owner of the link when the click
 * was written. `count` is in no index and the table is stored with fillfactor 80 (migration 0031), so
 * most of the upserts of a click batch are HOT updates (docs/adr/0058-account-link-rollups-hot.md).
 */
export const accountStatsDaily = pgTable(
  "account_stats_daily",
  {
    workspaceId: integer()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    dimension: text({ enum: ACCOUNT_ROLLUP_DIMENSIONS }).notNull(),
    day: date({ mode: "string" }).notNull(),
    value: text().notNull(),
    count: bigint({ mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.dimension, t.day, t.value] }),
    check("account_stats_daily_dimension_check", sql`${t.dimension} in ('clicks', 'country', 'platform', 'browser', 'device', 'language', 'referrer', 'unique', 'bots', 'imported')`),
  ],
);

/**
 * Each workspace's clicks (humans) a day per link, for its top links (CONTRACT §21), kept with
 * `account_stats_daily` by `recordClicks` and the importer. Apart from it because `count` is indexed
 * (the top links read each day's busiest links), which makes every update of a row a new index entry:
 * in `account_stats_daily` it kept all the other rows from HOT updates (docs/adr/0058-account-link-rollups-hot.md).
 * No foreign key to `links`: a deleted link's clicks stay (they happened, and are in the account's
 * `clicks`); the top links skip links that are gone.
 */
export const accountLinkDaily = pgTable(
  "account_link_daily",
  {
    workspaceId: integer()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    day: date({ mode: "string" }).notNull(),
    linkId: integer().notNull(),
    count: bigint({ mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.day, t.linkId] }),
    // Each day's links by clicks, busiest first: the top links of a range read a few rows a day
    // instead of every link-day of the range (docs/adr/0042-account-wide-statistics.md).
    index("account_link_daily_count_idx").on(t.workspaceId, t.day, t.count.desc(), t.linkId),
  ],
);

/**
 * The secret salt of one UTC day for unique visitors (CONTRACT §21): made by the first process that needs
 * it, shared by every process through this row, and deleted once its day is over (with that day's
 * `link_visitor_sets` and `link_visitors`), so a visitor's hash can never be computed again.
 */
export const visitorSalts = pgTable("visitor_salts", {
  day: date({ mode: "string" }).primaryKey(),
  /** 32 random bytes, hex. */
  salt: text().notNull(),
});

/**
 * The visitors of each link today, in sets (docs/adr/0056-visitor-sets.md): a visitor is a 64-bit keyed
 * hash of (client group, User-Agent, link) under the day's salt — never an address — and lives in the row
 * of its link, day and bucket (the hash's top 7 bits, 128 buckets), in `visitors` (unsorted, distinct).
 * `added` is how many the last write added (returned to `recordClicks` for `unique`); `spill`, the
 * visitors the last write found new in a full bucket, which go to `link_visitors` instead. The rows of a
 * day are deleted with its salt.
 */
export const linkVisitorSets = pgTable(
  "link_visitor_sets",
  {
    linkId: integer().notNull(),
    day: date({ mode: "string" }).notNull(),
    bucket: smallint().notNull(),
    visitors: bigint({ mode: "bigint" }).array().notNull(),
    added: integer().notNull(),
    spill: bigint({ mode: "bigint" }).array(),
  },
  (t) => [primaryKey({ columns: [t.linkId, t.day, t.bucket] })],
);

/**
 * The visitors of a link and day past a full bucket of `link_visitor_sets` (one row each): a first
 * sighting adds 1 to the link's `unique` rollup; the rows of a day are deleted with its salt.
 */
export const linkVisitors = pgTable(
  "link_visitors",
  {
    linkId: integer().notNull(),
    day: date({ mode: "string" }).notNull(),
    visitor: bigint({ mode: "bigint" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.linkId, t.day, t.visitor] })],
);

/** What an orphan visit was (CONTRACT §21): the domain's `/`, an unknown alias, a disabled or expired link; `alias` rows name the unknown alias; `bots` counts orphan visits by bots (of any kind). */
export const ORPHAN_KINDS = ["index", "not_found", "disabled", "expired", "alias", "bots"] as const;
export type OrphanKind = (typeof ORPHAN_KINDS)[number];

/**
 * Visits that reached no link, per domain and UTC day, never counted as clicks. Humans count under
 * their kind (and an unknown alias also under `alias`, value the alias cut to 255 characters); bots
 * under `bots` only, value ''.
 */
export const domainVisitsDaily = pgTable(
  "domain_visits_daily",
  {
    domainId: integer()
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    kind: text({ enum: ORPHAN_KINDS }).notNull(),
    day: date({ mode: "string" }).notNull(),
    value: text().notNull(),
    count: bigint({ mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.domainId, t.kind, t.day, t.value] }), check("domain_visits_daily_kind_check", sql`${t.kind} in ('index', 'not_found', 'disabled', 'expired', 'alias', 'bots')`)],
);

export const importJobs = pgTable(
  "import_jobs",
  {
    id: serial().primaryKey(),
    workspaceId: integer()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    status: text({ enum: ["queued", "running", "completed", "failed"] })
      .notNull()
      .default("queued"),
    idempotencyKey: text(),
    defaultDomainId: integer().references(() => domains.id, { onDelete: "set null" }),
    /**
     * Whether the job's file is stored (in `import_source_parts`, in order), kept until the job
     * finishes so a restarted worker can resume it. False for CLI jobs, which read their own file.
     */
    hasSource: boolean().notNull().default(false),
    /**
     * How the file is read: `csv` (CONTRACT §12) or another service's export (§23: `bitly`, `dub`, …),
     * so a resumed worker reads the stored file the way its upload was checked.
     */
    format: text({ enum: ["csv", "bitly", "rebrandly", "shortio", "dub", "shlink", "yourls", "kutt", "phpshort"] })
      .notNull()
      .default("csv"),
    totalRows: integer().notNull().default(0),
    processedRows: integer().notNull().default(0),
    createdRows: integer().notNull().default(0),
    skippedRows: integer().notNull().default(0),
    failedRows: integer().notNull().default(0),
    /** The last file line whose row is committed: where a resumed worker starts again. */
    checkpointLine: integer().notNull().default(1),
    /**
     * A live migration's job (`importer migrate`, CONTRACT §23): where the source's next page starts
     * (null: at its first page, or the source has no more), committed with the rows before it, and every
     * cursor already read, so a source whose pages loop is refused instead of read for ever.
     */
    sourceCursor: text(),
    sourceCursorsSeen: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    failureMessage: text(),
    createdAt: timestamps.createdAt,
    startedAt: timestamp({ withTimezone: true, mode: "date" }),
    finishedAt: timestamp({ withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex("import_jobs_workspace_id_idempotency_key_key").on(t.workspaceId, t.idempotencyKey), index("import_jobs_workspace_id_id_idx").on(t.workspaceId, t.id)],
);

/**
 * A stored import file, in parts of about 1 MiB of text (docs/adr/0013-import-memory-and-storage.md):
 * an upload is written a part at a time and a worker reads it back a part at a time, so neither holds
 * the file, and neither rewrites or re-reads the whole of it per part.
 */
export const importSourceParts = pgTable(
  "import_source_parts",
  {
    jobId: integer()
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    part: integer().notNull(),
    content: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.part] })],
);

export const importErrors = pgTable(
  "import_errors",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    jobId: integer()
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    line: integer().notNull(),
    field: text(),
    message: text().notNull(),
    /** The refused row's alias, when it had one (a migration's report names every alias it could not keep). */
    alias: text(),
  },
  (t) => [index("import_errors_job_id_line_idx").on(t.jobId, t.line)],
);

/**
 * How many links each user has, kept by statement-level triggers on `links` (migration
 * 0004_link_counts_triggers), so an unfiltered list need not count a million rows. Spread over 16
 * shards a user, so concurrent creates do not queue on one row; the count is the sum.
 */
export const linkCounts = pgTable(
  "link_counts",
  {
    workspaceId: integer().notNull(),
    shard: smallint().notNull(),
    n: bigint({ mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.shard] })],
);

/**
 * Each workspace's tags with how many of its links carry each (CONTRACT §25), kept by triggers on
 * `links` (migration 0026_tag_counts: a statement-level one with links_count's transition tables for
 * inserts and deletes, a row-level one for updates of the tag columns), so the tag list and a create's
 * respelling read a row per tag instead of unnesting every tagged link. `name` is the spelling the tag
 * was first written with; a row goes when its last link does.
 */
export const workspaceTags = pgTable(
  "workspace_tags",
  {
    workspaceId: integer().notNull(),
    key: text().notNull(),
    name: text().notNull(),
    n: bigint({ mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.key] })],
);

/**
 * The events a webhook can subscribe to (CONTRACT §18): the list is @shortener/vocabulary's. A type only,
 * so drizzle-kit, which loads this file, needs no build of that package.
 */
export type { WebhookEventType };

/**
 * A user's webhook (CONTRACT §18). The signing secret is kept as is: the worker needs it to sign every
 * delivery, so unlike API keys and passwords it cannot be a hash (docs/adr/0023-webhooks.md).
 * `failing_since` is when the current run of failed attempts began (null after a success); a webhook
 * failing for 3 days is disabled.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    id: serial().primaryKey(),
    workspaceId: integer()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    url: text().notNull(),
    events: text().array().notNull().$type<WebhookEventType[]>(),
    secret: text().notNull(),
    disabled: boolean().notNull().default(false),
    failingSince: timestamp({ withTimezone: true, mode: "date" }),
    ...timestamps,
  },
  (t) => [index("webhooks_workspace_id_id_idx").on(t.workspaceId, t.id)],
);

/**
 * The outbox: an event is written here in the same transaction as the change it announces (only when
 * one of the user's enabled webhooks subscribes to its type), and the worker moves it into deliveries,
 * one per subscribed webhook. `data` is JSON text as rendered (key order kept). No foreign key: the
 * row lives for a second or so, and the drain drops events whose user has no webhook left.
 */
export const webhookEvents = pgTable("webhook_events", {
  id: bigserial({ mode: "number" }).primaryKey(),
  workspaceId: integer().notNull(),
  type: text().notNull().$type<WebhookEventType>(),
  data: json().notNull(),
  createdAt: timestamp({ withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * One event for one webhook. Per webhook, deliveries are sent in id order and a delivery waits until
 * the one before it is `delivered` or `failed` (CONTRACT §18). `next_attempt_at`: when a pending
 * delivery may be tried (again).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    webhookId: integer()
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: bigint({ mode: "number" }).notNull(),
    type: text().notNull().$type<WebhookEventType>(),
    data: json().notNull(),
    eventAt: timestamp({ withTimezone: true, mode: "date" }).notNull(),
    status: text({ enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true, mode: "date" }),
    createdAt: timestamp({ withTimezone: true, mode: "date" }).notNull().defaultNow(),
    finishedAt: timestamp({ withTimezone: true, mode: "date" }),
  },
  (t) => [
    // The head of each webhook's queue: its oldest pending delivery.
    index("webhook_deliveries_pending_idx")
      .on(t.webhookId, t.id)
      .where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_finished_at_idx")
      .on(t.finishedAt)
      .where(sql`${t.status} <> 'pending'`),
  ],
);

/** Every try of a delivery, as `GET /webhooks/{id}/deliveries` lists them. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    deliveryId: bigint({ mode: "number" })
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    webhookId: integer()
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    /** 1 for the first try of the delivery. */
    number: integer().notNull(),
    isSuccess: boolean().notNull(),
    /** The HTTP status, or null when no response came (refused target, timeout, connection error). */
    responseCode: integer(),
    durationMs: integer().notNull(),
    error: text(),
    /** The start of the response body (at most 1,024 characters). */
    responseBody: text(),
    /** When the delivery is tried next; null when it was delivered or has finally failed. */
    nextAttemptAt: timestamp({ withTimezone: true, mode: "date" }),
    createdAt: timestamp({ withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("webhook_attempts_webhook_id_id_idx").on(t.webhookId, t.id), index("webhook_attempts_delivery_id_idx").on(t.deliveryId)],
);

/**
 * Failed tries (wrong link and stats passwords, unknown API keys) per client group and target, shared by
 * every process when there is no Redis (docs/adr/0020-failed-try-limits.md). One row a key, counted
 * with an atomic upsert before the try is checked; `expires_at` ends its window, and expired rows are
 * swept in small batches through its index. UNLOGGED (see the migration): counters may be lost in a
 * crash, and they are not worth write-ahead logging.
 */
export const failedTries = pgTable(
  "failed_tries",
  {
    key: text().primaryKey(),
    count: integer().notNull(),
    expiresAt: timestamp({ withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [index("failed_tries_expires_at_idx").on(t.expiresAt)],
);

import { links } from "@shortener/db";
import type { LinkHealth } from "@shortener/vocabulary";
import type { Domain } from "../domains/domain-columns.ts";
import type { LinkStatus } from "../expiration/link-status.ts";
import type { Pixel } from "../pixels/pixel-columns.ts";
import type { Space } from "../spaces/space-columns.ts";
import type { LinkTargets } from "../targeting/target-types.ts";

/*
 * A link's projection: the type core returns and the columns that read it. A module of its own that
 * imports only types and the schema, so the context (whose webhook renderer takes a Link) and the
 * readers of links never import a verb file (tooling/test/import-cycles.test.ts keeps it so).
 */

/** A link as core returns it: secrets reduced to whether they are set, with its domain, space and pixels. */
export type Link = LinkTargets & {
  id: number;
  workspaceId: number;
  alias: string;
  url: string;
  title: string | null;
  lastRotation: number | null;
  disabled: boolean;
  privacy: number;
  hasPassword: boolean;
  hasPrivacyPassword: boolean;
  expirationUrl: string | null;
  expirationClicks: number;
  endsAt: Date | null;
  clicks: number;
  status: LinkStatus;
  space: Pick<Space, "id" | "name" | "color"> | null;
  domain: Domain;
  pixels: Pixel[];
  /** Its tags as stored (CONTRACT §25), in the order they were sent. */
  tags: string[];
  /** Its Open Graph preview (CONTRACT §25): null when not set. */
  ogTitle: string | null;
  ogDescription: string | null;
  ogImage: string | null;
  /** The destination's health as the worker last found it (CONTRACT §25): ok, broken or unchecked. */
  health: LinkHealth;
  /** Why it is broken, or why it is unchecked (e.g. a private address); null when ok or never looked at. */
  healthReason: string | null;
  /** When the worker last looked at the destination; null: never, or not since the url changed. */
  healthCheckedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

/** The columns of a link's targeting (`LinkTargets`): every read of a link that targets selects them. */
export const linkTargetColumns = {
  targetType: links.targetType,
  countryTarget: links.countryTarget,
  platformTarget: links.platformTarget,
  languageTarget: links.languageTarget,
  rotationTarget: links.rotationTarget,
};

export const linkColumns = {
  id: links.id,
  workspaceId: links.workspaceId,
  alias: links.alias,
  url: links.url,
  title: links.title,
  ...linkTargetColumns,
  lastRotation: links.lastRotation,
  disabled: links.disabled,
  privacy: links.privacy,
  passwordHash: links.passwordHash,
  privacyPasswordHash: links.privacyPasswordHash,
  expirationUrl: links.expirationUrl,
  expirationClicks: links.expirationClicks,
  endsAt: links.endsAt,
  clicks: links.clicks,
  tags: links.tags,
  ogTitle: links.ogTitle,
  ogDescription: links.ogDescription,
  ogImage: links.ogImage,
  health: links.health,
  healthReason: links.healthReason,
  healthCheckedAt: links.healthCheckedAt,
  createdAt: links.createdAt,
  updatedAt: links.updatedAt,
};

/**
 * The one list of the columns a new link's insert writes, in order, with each one's SQL type (the
 * import binds a batch as typed arrays). `createLink` writes all but `importKey`; `writeImportBatch` all
 * but the targeting ones (an import file has no targeting columns).
 */
export const LINK_INSERT_COLUMNS = {
  workspaceId: "int",
  domainId: "int",
  spaceId: "int",
  alias: "text",
  url: "text",
  title: "text",
  passwordHash: "text",
  disabled: "boolean",
  privacy: "smallint",
  privacyPasswordHash: "text",
  expirationUrl: "text",
  expirationClicks: "int",
  endsAt: "timestamptz",
  targetType: "smallint",
  countryTarget: "jsonb",
  platformTarget: "jsonb",
  languageTarget: "jsonb",
  rotationTarget: "jsonb",
  tags: "text[]",
  tagKeys: "text[]",
  ogTitle: "text",
  ogDescription: "text",
  ogImage: "text",
  importKey: "text",
  createdAt: "timestamptz",
  updatedAt: "timestamptz",
} as const satisfies Partial<Record<keyof typeof links.$inferInsert, string>>;
export type LinkInsertColumn = keyof typeof LINK_INSERT_COLUMNS;
/** The tag columns: a create writes them; an import row sets them after its insert (write-import-batch.ts). */
export const TAG_INSERT_COLUMNS = ["tags", "tagKeys"] as const satisfies readonly LinkInsertColumn[];
export const TARGET_INSERT_COLUMNS = ["targetType", "countryTarget", "platformTarget", "languageTarget", "rotationTarget"] as const satisfies readonly LinkInsertColumn[];

/** A column's name in SQL (the schema's casing is snake_case). */
export function linkColumnName(column: LinkInsertColumn): string {
  return column.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

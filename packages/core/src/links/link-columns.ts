import { links } from "@shortener/db";
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
  userId: number;
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
  userId: links.userId,
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
  createdAt: links.createdAt,
  updatedAt: links.updatedAt,
};

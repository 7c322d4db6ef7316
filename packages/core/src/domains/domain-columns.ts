import { domains } from "@shortener/db";

/**
 * A domain's projection: its type and the columns that read it. A module of its own, importing nothing
 * of core, so the readers of links (and through them the context's types) never import a verb file.
 */

/** A domain as its owner sees it. `verifiedAt` null: claimed but not proven, so it takes links and does not serve (CONTRACT §14). */
export type Domain = {
  id: number;
  name: string;
  indexPage: string | null;
  notFoundPage: string | null;
  verifiedAt: Date | null;
  verificationToken: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export const domainColumns = {
  id: domains.id,
  name: domains.name,
  indexPage: domains.indexPage,
  notFoundPage: domains.notFoundPage,
  verifiedAt: domains.verifiedAt,
  verificationToken: domains.verificationToken,
  createdAt: domains.createdAt,
  updatedAt: domains.updatedAt,
};

/**
 * A domain as the domain endpoints show it: with its app-link files (CONTRACT §25, up to 64 KiB each).
 * A link's embedded domain is a `Domain`, without them, so a page of links never carries the files.
 */
export type DomainDetail = Domain & { appleAppSiteAssociation: string | null; assetLinks: string | null };

export const domainDetailColumns = {
  ...domainColumns,
  appleAppSiteAssociation: domains.appleAppSiteAssociation,
  assetLinks: domains.assetLinks,
};

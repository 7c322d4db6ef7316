import { z } from "zod";
import { normalizeDomainName, urlField } from "../urls/url.ts";
import { NamedListParams } from "../lists/pagination.ts";
import { onCreate, onUpdate, refused } from "../validation/fields.ts";
import { appleAppSiteAssociationField, assetLinksField } from "./app-links.ts";

const name = z.string({ error: "The name field is required." }).transform((value, ctx) => {
  const normalized = normalizeDomainName(value);
  if (!normalized) {
    ctx.addIssue({ code: "custom", message: "The name must be a host name or an IPv4 address, with an optional port." });
    return z.NEVER;
  }
  return normalized;
});

export const CreateDomainShape = {
  name,
  index_page: onCreate(urlField("index page")),
  not_found_page: onCreate(urlField("not found page")),
  apple_app_site_association: onCreate(appleAppSiteAssociationField),
  asset_links: onCreate(assetLinksField),
};
export const CreateDomainInput = z.object(CreateDomainShape);
export type CreateDomainInput = z.input<typeof CreateDomainInput>;

export const UpdateDomainShape = {
  name: refused("The name cannot be changed."),
  index_page: onUpdate(urlField("index page")),
  not_found_page: onUpdate(urlField("not found page")),
  /** An empty value removes the file (its path answers 404 again). */
  apple_app_site_association: onUpdate(appleAppSiteAssociationField),
  asset_links: onUpdate(assetLinksField),
};
export const UpdateDomainInput = z.object(UpdateDomainShape);
export type UpdateDomainInput = z.input<typeof UpdateDomainInput>;

export const ListDomainsInput = z.object(NamedListParams);
export type ListDomainsInput = z.input<typeof ListDomainsInput>;

import type { z } from "zod";
import * as core from "@shortener/core";
import type { Serializers } from "./serialize/resources.ts";
import type { Scope, WorkspaceRole } from "@shortener/core";

type Ctx = core.Ctx;

/** The object name a delete answers with (CONTRACT §2). */
export type ResourceObject = "link" | "domain" | "space" | "pixel";

/**
 * One CRUD resource, described once for both transports: its core verbs, the zod schemas of their
 * inputs (tRPC validates with them; REST hands the decoded form to the verb, which parses it with the
 * same schema), and its JSON. REST's `crud()` (routes/resources.ts) and tRPC's `crudRouter()`
 * (trpc/resources.ts) generate the five operations from it.
 */
export type ResourceSpec<T, J, O extends ResourceObject, L extends z.ZodType, C extends z.ZodType, U extends z.ZodType> = {
  /** REST's collection path under `/api/v1`. */
  path: `/${string}`;
  object: O;
  /**
   * The scopes a key needs (CONTRACT §17): `read` for list and get, `write` for create, update and
   * delete — on REST and tRPC alike. Spaces and pixels are parts of links, so they take the links' scopes.
   */
  scopes: { read: Scope; write: Scope };
  /**
   * The roles a member needs in the workspace (CONTRACT §24), declared next to the scopes: `read` for
   * list and get, `write` for the changes — viewers read, editors change links, spaces and pixels, admins
   * domains.
   */
  roles: { read: WorkspaceRole; write: WorkspaceRole };
  input: { list: L; create: C; update: U };
  /** Core verbs parse their own input (the adapters hand them what they decoded), hence `unknown`. */
  verbs: {
    list(args: { ctx: Ctx; input: unknown }): Promise<core.Page<T>>;
    get(args: { ctx: Ctx; id: number }): Promise<T>;
    create(args: { ctx: Ctx; input: unknown }): Promise<T>;
    update(args: { ctx: Ctx; id: number; input: unknown }): Promise<T>;
    delete(args: { ctx: Ctx; id: number }): Promise<{ id: number }>;
  };
  /** Picks the resource's serialiser (CONTRACT §3), the same for REST's `data` and tRPC's answer. */
  toJson(json: Serializers): (item: T) => J;
};

/** Types a resource's spec (the object name stays a literal type, which the typed client sees). */
export function defineResource<T, J, O extends ResourceObject, L extends z.ZodType, C extends z.ZodType, U extends z.ZodType>(spec: ResourceSpec<T, J, O, L, C, U>): ResourceSpec<T, J, O, L, C, U> {
  return spec;
}

export const links = defineResource({
  path: "/links",
  object: "link",
  scopes: { read: "links:read", write: "links:write" },
  roles: { read: "viewer", write: "editor" },
  input: { list: core.ListLinksInput, create: core.CreateLinkInput, update: core.UpdateLinkInput },
  verbs: { list: core.listLinks, get: core.getLink, create: core.createLink, update: core.updateLink, delete: core.deleteLink },
  toJson: (json) => json.link,
});

export const domains = defineResource({
  path: "/domains",
  object: "domain",
  scopes: { read: "domains:read", write: "domains:write" },
  roles: { read: "viewer", write: "admin" },
  input: { list: core.ListDomainsInput, create: core.CreateDomainInput, update: core.UpdateDomainInput },
  verbs: { list: core.listDomains, get: core.getDomain, create: core.createDomain, update: core.updateDomain, delete: core.deleteDomain },
  toJson: (json) => json.domainDetail,
});

export const spaces = defineResource({
  path: "/spaces",
  object: "space",
  scopes: { read: "links:read", write: "links:write" },
  roles: { read: "viewer", write: "editor" },
  input: { list: core.ListSpacesInput, create: core.CreateSpaceInput, update: core.UpdateSpaceInput },
  verbs: { list: core.listSpaces, get: core.getSpace, create: core.createSpace, update: core.updateSpace, delete: core.deleteSpace },
  toJson: (json) => json.space,
});

export const pixels = defineResource({
  path: "/pixels",
  object: "pixel",
  scopes: { read: "links:read", write: "links:write" },
  roles: { read: "viewer", write: "editor" },
  input: { list: core.ListPixelsInput, create: core.CreatePixelInput, update: core.UpdatePixelInput },
  verbs: { list: core.listPixels, get: core.getPixel, create: core.createPixel, update: core.updatePixel, delete: core.deletePixel },
  toJson: (json) => json.pixel,
});

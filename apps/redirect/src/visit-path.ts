import { APP_LINK_PATHS, isAliasShaped } from "@shortener/core";

/** Which app-link file a `/.well-known/` path asks for (CONTRACT §25). */
export type AppLinkFile = "appleAppSiteAssociation" | "assetLinks";

/**
 * Steps 1–2 of CONTRACT §7 for a request target: the domain's index (`/`), an alias (one trailing `/`
 * allowed), an alias's QR code (`/{alias}/qr`, CONTRACT §17: an alias has no `/`, so this shadows
 * none), one of the domain's app-link files (`/.well-known/apple-app-site-association`,
 * `/.well-known/assetlinks.json`, CONTRACT §25: an alias has no `.` or `/`, so these are never aliases),
 * or a path no alias can have; and the query string (the visitor's, passed on to the destination, or
 * the QR code's options).
 */
export type VisitPath =
  | { kind: "index"; query: string }
  | { kind: "alias"; alias: string; query: string }
  | { kind: "qr"; alias: string; query: string }
  | { kind: "app-links"; file: AppLinkFile; query: string }
  | { kind: "none"; query: string };

export function parseVisitPath(url: string): VisitPath {
  const q = url.indexOf("?");
  const asked = q === -1 ? url : url.slice(0, q);
  let path = asked;
  const query = q === -1 ? "" : url.slice(q + 1);
  if (path === "/") return { kind: "index", query };
  if (path.length > 2 && path.endsWith("/")) path = path.slice(0, -1);
  const alias = path.slice(1);
  if (isAliasShaped(alias)) return { kind: "alias", alias, query };
  if (alias.endsWith("/qr") && isAliasShaped(alias.slice(0, -3))) return { kind: "qr", alias: alias.slice(0, -3), query };
  // Exactly these two paths as written (case-sensitive, no trailing slash), checked only once no alias matched.
  const file = Object.hasOwn(APP_LINK_PATHS, asked) ? APP_LINK_PATHS[asked] : undefined;
  if (file) return { kind: "app-links", file, query };
  return { kind: "none", query };
}

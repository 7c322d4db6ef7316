import { isAliasShaped } from "@shortener/core";

/**
 * Steps 1–2 of CONTRACT §7 for a request target: the domain's index (`/`), an alias (one trailing `/`
 * allowed), or a path no alias can have; and the visitor's query string, passed on to the destination.
 */
export type VisitPath = { kind: "index"; query: string } | { kind: "alias"; alias: string; query: string } | { kind: "none"; query: string };

export function parseVisitPath(url: string): VisitPath {
  const q = url.indexOf("?");
  let path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q + 1);
  if (path === "/") return { kind: "index", query };
  if (path.length > 2 && path.endsWith("/")) path = path.slice(0, -1);
  const alias = path.slice(1);
  return isAliasShaped(alias) ? { kind: "alias", alias, query } : { kind: "none", query };
}

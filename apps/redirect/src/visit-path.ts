import { isAliasShaped } from "@shortener/core";

/**
 * Steps 1–2 of CONTRACT §7 for a request target: the domain's index (`/`), an alias (one trailing `/`
 * allowed), an alias's QR code (`/{alias}/qr`, CONTRACT §17: an alias has no `/`, so this shadows
 * none), or a path no alias can have; and the query string (the visitor's, passed on to the destination,
 * or the QR code's options).
 */
export type VisitPath = { kind: "index"; query: string } | { kind: "alias"; alias: string; query: string } | { kind: "qr"; alias: string; query: string } | { kind: "none"; query: string };

export function parseVisitPath(url: string): VisitPath {
  const q = url.indexOf("?");
  let path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q + 1);
  if (path === "/") return { kind: "index", query };
  if (path.length > 2 && path.endsWith("/")) path = path.slice(0, -1);
  const alias = path.slice(1);
  if (isAliasShaped(alias)) return { kind: "alias", alias, query };
  if (alias.endsWith("/qr") && isAliasShaped(alias.slice(0, -3))) return { kind: "qr", alias: alias.slice(0, -3), query };
  return { kind: "none", query };
}

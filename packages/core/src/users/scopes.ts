import { API_KEY_SCOPES, type Scope } from "@shortener/vocabulary";

/**
 * What a named API key may do (CONTRACT §17; the list is @shortener/vocabulary's). Each REST route and
 * tRPC procedure declares the one scope it needs where it is defined (apps/api); the keys of §9 hold them
 * all (docs/adr/0027-scoped-api-keys.md).
 */
export { API_KEY_SCOPES, type Scope } from "@shortener/vocabulary";

/**
 * The most a caller may do (docs/adr/0033-session-bounds.md): the scopes of the key or session it acts
 * with, and when that ends (null: never). A context without bounds has its user's full rights (operator
 * tools, tests); the API always sets them.
 */
export type Bounds = { scopes: readonly Scope[]; expiresAt: Date | null };

/** Whether `bounds` are the user's full rights: every scope, with no end. Only those may set a password or make a §9 key. */
export function hasFullRights(bounds: Bounds | undefined): boolean {
  return !bounds || (bounds.expiresAt === null && API_KEY_SCOPES.every((scope) => bounds.scopes.includes(scope)));
}

/** Whether a key with `scopes` may use an operation that needs `scope`. */
export function hasScope(scopes: readonly Scope[], scope: Scope): boolean {
  return scopes.includes(scope);
}

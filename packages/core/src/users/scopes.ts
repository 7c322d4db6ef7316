import type { Scope } from "@shortener/vocabulary";

/**
 * What a named API key may do (CONTRACT §17; the list is @shortener/vocabulary's). Each REST route and
 * tRPC procedure declares the one scope it needs where it is defined (apps/api); the keys of §9 hold them
 * all (docs/adr/0027-scoped-api-keys.md).
 */
export { API_KEY_SCOPES, type Scope } from "@shortener/vocabulary";

/** Whether a key with `scopes` may use an operation that needs `scope`. */
export function hasScope(scopes: readonly Scope[], scope: Scope): boolean {
  return scopes.includes(scope);
}

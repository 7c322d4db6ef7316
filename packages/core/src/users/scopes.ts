/**
 * What a named API key may do (CONTRACT §17). Each REST route and tRPC procedure declares the one scope
 * it needs where it is defined (apps/api); the keys of §9 hold them all (docs/adr/0027-scoped-api-keys.md).
 */
export const API_KEY_SCOPES = ["links:read", "links:write", "domains:read", "domains:write", "stats:read", "imports:write", "account"] as const;
export type Scope = (typeof API_KEY_SCOPES)[number];

/** Whether a key with `scopes` may use an operation that needs `scope`. */
export function hasScope(scopes: readonly Scope[], scope: Scope): boolean {
  return scopes.includes(scope);
}

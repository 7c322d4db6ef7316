/**
 * What a named API key may do (CONTRACT §17), in the contract's order. Each REST route and tRPC procedure
 * declares the one scope it needs where it is defined (apps/api; docs/adr/0027-scoped-api-keys.md).
 */
export const API_KEY_SCOPES = ["links:read", "links:write", "domains:read", "domains:write", "stats:read", "imports:write", "account"] as const;
export type Scope = (typeof API_KEY_SCOPES)[number];

import type { ApiKey } from "@shortener/core";

/** A named API key (CONTRACT §17): never the secret. */
export function apiKeyJson(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    expires_at: key.expiresAt?.toISOString() ?? null,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    created_at: key.createdAt.toISOString(),
    /** Who made it: the key acts with their role in the workspace (CONTRACT §24). */
    created_by: { id: key.createdBy.id, name: key.createdBy.name, email: key.createdBy.email },
  };
}

/** The answer to a create: the key and, this once, its secret (`api_key`, as the keys of §9 are shown). */
export function createdApiKeyJson(key: ApiKey, secret: string) {
  return { ...apiKeyJson(key), api_key: secret };
}

import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { apiKeys } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { sha256 } from "../secrets/hash.ts";
import { parseInput } from "../validation/fields.ts";
import { API_KEY_PREFIX_LENGTH, generateApiKey } from "./api-keys.ts";
import { CreateApiKeyInput, MAX_NAMED_KEYS_PER_USER } from "./key-schemas.ts";
import { namedKeyColumns, toApiKey, type ApiKey } from "./named-key.ts";
import { withinUserCap } from "./user-cap.ts";

/**
 * A new named key of the caller with the scopes asked for (CONTRACT §17). The secret is returned here
 * only; the database keeps its SHA-256 hash and its first 8 characters. At most
 * `MAX_NAMED_KEYS_PER_USER` live keys a user, under concurrency too (`withinUserCap`); `expires_at`
 * must lie in the future.
 */
export async function createApiKey({ ctx, input }: { ctx: Ctx; input: CreateApiKeyInput }): Promise<{ apiKey: ApiKey; secret: string }> {
  const data = parseInput(CreateApiKeyInput, input);
  const expiresAt = data.expires_at ? new Date(data.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= ctx.now().getTime()) throw ValidationError.field("expires_at", "The expires at must be a date in the future.");
  const cap = {
    table: apiKeys,
    held: and(eq(apiKeys.userId, ctx.actor.userId), isNotNull(apiKeys.name), isNull(apiKeys.revokedAt)),
    max: MAX_NAMED_KEYS_PER_USER,
    refusal: () => ValidationError.field("name", `You cannot have more than ${MAX_NAMED_KEYS_PER_USER} API keys; delete one first.`),
  };
  return withinUserCap(ctx, cap, async (tx) => {
    const secret = generateApiKey();
    const [row] = await tx.db
      .insert(apiKeys)
      .values({
        userId: tx.actor.userId,
        keyHash: sha256(secret),
        prefix: secret.slice(0, API_KEY_PREFIX_LENGTH),
        name: data.name,
        scopes: data.scopes,
        expiresAt,
        createdAt: tx.now(),
      })
      .returning(namedKeyColumns);
    if (!row) throw new Error("insert returned no row");
    return { apiKey: toApiKey(row), secret };
  });
}

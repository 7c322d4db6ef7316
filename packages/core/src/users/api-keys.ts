import { and, eq, isNull } from "drizzle-orm";
import { apiKeys, users, type Db } from "@shortener/db";
import type { Actor, SystemCtx } from "../context.ts";
import { sha256 } from "../secrets/hash.ts";
import { randomBase62 } from "../secrets/random.ts";

/** Every key starts with this, so leaked keys are recognisable (secret scanners, logs). */
export const API_KEY_PREFIX = "shk_";

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(40);
}

/** Stores `token` (only its hash) as a key of `userId`; returns the token. */
export async function issueApiKey(db: Db, userId: number, token: string = generateApiKey()): Promise<string> {
  await db.insert(apiKeys).values({ userId, keyHash: sha256(token), prefix: token.slice(0, 8) });
  return token;
}

export type Authenticated = Actor & { keyId: number };

/** Finds the live key behind a bearer token: one indexed read by hash. Null for unknown or revoked keys. */
export async function authenticateApiKey(ctx: SystemCtx, token: string): Promise<Authenticated | null> {
  if (token.length < 16 || token.length > 256) return null;
  const [row] = await ctx.db
    .select({ keyId: apiKeys.id, userId: users.id, role: users.role })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, sha256(token)), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row ?? null;
}

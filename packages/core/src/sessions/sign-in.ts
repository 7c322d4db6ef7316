import { eq, sql } from "drizzle-orm";
import { apiKeys, users } from "@shortener/db";
import { personalWorkspaceId, recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx, type SystemCtx } from "../context.ts";
import { ForbiddenError, ValidationError } from "../errors.ts";
import { hashPassword, verifyPassword } from "../secrets/hash.ts";
import { liveKeyWhere } from "../users/api-keys.ts";
import { parseInput } from "../validation/fields.ts";
import { hasFullRights, type Scope } from "../users/scopes.ts";
import { KeySignInInput, PasswordSignInInput, SetPasswordInput } from "./schemas.ts";
import { endOtherSessions, type SessionKey } from "./sessions.ts";

/** A scrypt hash of nothing anyone knows: an unknown email costs the same scrypt as a wrong password. */
let decoyHash: Promise<string> | undefined;

/**
 * The user whose email and password these are, or null (unknown email, no password set, wrong
 * password — one answer for all, in the same time).
 */
export async function checkPasswordSignIn(ctx: SystemCtx, input: PasswordSignInInput): Promise<{ userId: number } | null> {
  const { email, password } = parseInput(PasswordSignInInput, input);
  const [user] = await ctx.db
    .select({ id: users.id, passwordHash: users.passwordHash })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`)
    .limit(1);
  const hash = user?.passwordHash ?? (await (decoyHash ??= hashPassword("decoy password never set")));
  const isRight = await verifyPassword(password, hash);
  return user?.passwordHash && isRight ? { userId: user.id } : null;
}

/**
 * The one-time sign-in with an API key (CONTRACT §19): the key's user and the key (the session's bounds),
 * if the key is live, is the account's own key (§9) or a named key with the `account` scope, and the
 * user has no password yet. Null otherwise, one answer for every reason: unknown, revoked, expired, a key
 * without `account`, a user with a password (docs/adr/0033-session-bounds.md).
 */
export async function checkKeySignIn(ctx: SystemCtx, input: KeySignInInput): Promise<{ userId: number; key: SessionKey } | null> {
  const { api_key } = parseInput(KeySignInInput, input);
  if (api_key.length < 16) return null;
  const [row] = await ctx.db
    .select({ id: apiKeys.id, userId: apiKeys.userId, scopes: apiKeys.scopes, expiresAt: apiKeys.expiresAt, passwordHash: users.passwordHash })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(liveKeyWhere(ctx, api_key))
    .limit(1);
  if (!row || row.passwordHash !== null) return null;
  // A §9 key has no scopes (every scope); a named key opens a session only with `account`.
  if (row.scopes !== null && !row.scopes.includes("account" satisfies Scope)) return null;
  return { userId: row.userId, key: { id: row.id, scopes: row.scopes as Scope[] | null, expiresAt: row.expiresAt } };
}

/** Whether the acting user has a dashboard password. */
export async function hasPassword({ ctx }: { ctx: Ctx }): Promise<boolean> {
  const [user] = await ctx.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, ctx.actor.userId));
  return Boolean(user?.passwordHash);
}

/**
 * Sets the acting user's password; once one is set, changing it needs the current one (422 otherwise).
 * A password signs in with the user's full rights, so only a caller holding them may set it: a password
 * session, the §9 key or a session it opened, a named key with every scope and no expiry (403 otherwise).
 * Setting it ends every other session of the user: all but `keepSessionId`, the one asking (if any).
 */
export async function setPassword({ ctx, input, keepSessionId = null }: { ctx: Ctx; input: SetPasswordInput; keepSessionId?: number | null }): Promise<void> {
  if (!hasFullRights(ctx.actor.bounds)) throw new ForbiddenError("Only your password or your account's own API key can set the password: this key or session has fewer rights.");
  const data = parseInput(SetPasswordInput, input);
  const [user] = await ctx.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, ctx.actor.userId));
  if (user?.passwordHash) {
    if (!data.current_password) throw ValidationError.field("current_password", "The current password field is required.");
    if (!(await verifyPassword(data.current_password, user.passwordHash))) throw ValidationError.field("current_password", "The current password is not correct.");
  }
  const passwordHash = await hashPassword(data.password);
  await withTransaction(ctx, async (tx) => {
    await tx.db.update(users).set({ passwordHash, updatedAt: tx.now() }).where(eq(users.id, tx.actor.userId));
    await endOtherSessions(tx.db, tx.actor.userId, keepSessionId);
    // An account's change: in the log of the user's personal workspace; the password as "[redacted]".
    await recordAudit(tx, {
      action: user?.passwordHash ? "user.password_changed" : "user.password_set",
      objectType: "user",
      objectId: tx.actor.userId,
      before: { password: Boolean(user?.passwordHash) },
      after: { password: true },
      secretsChanged: ["password"],
      workspaceId: (await personalWorkspaceId(tx.db, tx.actor.userId)) ?? tx.actor.workspaceId,
    });
  });
}

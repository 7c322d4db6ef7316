import { eq, sql } from "drizzle-orm";
import { users } from "@shortener/db";
import type { Ctx, SystemCtx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { hashPassword, verifyPassword } from "../secrets/hash.ts";
import { parseInput } from "../validation/fields.ts";
import { authenticateApiKey } from "../users/api-keys.ts";
import { KeySignInInput, PasswordSignInInput, SetPasswordInput } from "./schemas.ts";

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
 * The one-time sign-in with an API key (CONTRACT §19): the key's user, if the key is live and the user
 * has no password yet; null otherwise (a user with a password signs in with it).
 */
export async function checkKeySignIn(ctx: SystemCtx, input: KeySignInInput): Promise<{ userId: number } | null> {
  const { api_key } = parseInput(KeySignInInput, input);
  const auth = await authenticateApiKey(ctx, api_key);
  if (!auth) return null;
  const [user] = await ctx.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, auth.userId));
  return user && user.passwordHash === null ? { userId: auth.userId } : null;
}

/** Whether the acting user has a dashboard password. */
export async function hasPassword({ ctx }: { ctx: Ctx }): Promise<boolean> {
  const [user] = await ctx.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, ctx.actor.userId));
  return Boolean(user?.passwordHash);
}

/** Sets the acting user's password; once one is set, changing it needs the current one (422 otherwise). */
export async function setPassword({ ctx, input }: { ctx: Ctx; input: SetPasswordInput }): Promise<void> {
  const data = parseInput(SetPasswordInput, input);
  const [user] = await ctx.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, ctx.actor.userId));
  if (user?.passwordHash) {
    if (!data.current_password) throw ValidationError.field("current_password", "The current password field is required.");
    if (!(await verifyPassword(data.current_password, user.passwordHash))) throw ValidationError.field("current_password", "The current password is not correct.");
  }
  await ctx.db
    .update(users)
    .set({ passwordHash: await hashPassword(data.password), updatedAt: ctx.now() })
    .where(eq(users.id, ctx.actor.userId));
}

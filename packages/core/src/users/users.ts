import { and, asc, count, desc, eq, ilike, isNull, sql } from "drizzle-orm";
import { apiKeys, escapeLike, isUniqueViolation, users } from "@shortener/db";
import { personalWorkspaceId, recordAudit, type AuditEntry } from "../audit/record-audit.ts";
import { withTransaction, type Ctx, type SystemCtx } from "../context.ts";
import { ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { offsetOf, type Page } from "../lists/pagination.ts";
import { notifyChange } from "../changes/changes.ts";
import { parseInput } from "../validation/fields.ts";
import { sha256 } from "../secrets/hash.ts";
import { endSessionsOfKeys } from "../sessions/sessions.ts";
import { API_KEY_PREFIX_LENGTH, generateApiKey, issueApiKey } from "./api-keys.ts";
import { hasFullRights } from "./scopes.ts";
import { insertUserWithWorkspace } from "../workspaces/personal.ts";
import { CreateUserInput, ListUsersInput, UserIdInput } from "./schemas.ts";

export type User = { id: number; email: string; name: string; role: "admin" | "user"; createdAt: Date };

const userColumns = { id: users.id, email: users.email, name: users.name, role: users.role, createdAt: users.createdAt };

/** A user as the audit log records them: never a password or key. */
const userAuditView = (u: Pick<User, "email" | "name" | "role">) => ({ email: u.email, name: u.name, role: u.role });

/**
 * The instance's own changes (users an admin makes or deletes) go to the log of the acting admin's
 * personal workspace: a team's admins do not see them, and the admin always can (docs/audit.md).
 */
async function recordInstanceAudit(ctx: Ctx, entry: AuditEntry): Promise<void> {
  await recordAudit(ctx, { ...entry, workspaceId: (await personalWorkspaceId(ctx.db, ctx.actor.userId)) ?? ctx.actor.workspaceId });
}

function assertAdmin(ctx: Ctx): void {
  if (ctx.actor.role !== "admin") throw new ForbiddenError("This action is reserved for administrators.");
}

export async function getAccount({ ctx }: { ctx: Ctx }): Promise<User> {
  const [user] = await ctx.db.select(userColumns).from(users).where(eq(users.id, ctx.actor.userId));
  if (!user) throw new NotFoundError("User");
  return user;
}

/** A user by email (case-insensitive), or null: for operator tools, which act as a user without their key. */
export async function findUserByEmail(ctx: SystemCtx, email: string): Promise<User | null> {
  const [user] = await ctx.db
    .select(userColumns)
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email.trim()})`)
    .limit(1);
  return user ?? null;
}

/** Admin only: creates a user and its first API key (returned once, stored as a hash). */
export async function createUser({ ctx, input }: { ctx: Ctx; input: CreateUserInput }): Promise<{ user: User; apiKey: string }> {
  assertAdmin(ctx);
  const data = parseInput(CreateUserInput, input);
  try {
    return await withTransaction(ctx, async (tx) => {
      const now = tx.now();
      const { workspaceId, ...user } = await insertUserWithWorkspace(tx.db, { email: data.email, name: data.name, role: "user", at: now });
      const apiKey = await issueApiKey(tx.db, user.id, workspaceId);
      await recordInstanceAudit(tx, { action: "user.created", objectType: "user", objectId: user.id, after: userAuditView(user) });
      return { user, apiKey };
    });
  } catch (error) {
    if (isUniqueViolation(error, "users_email_key")) throw ValidationError.field("email", "The email has already been taken.");
    throw error;
  }
}

export async function listUsers({ ctx, input }: { ctx: Ctx; input: ListUsersInput }): Promise<Page<User>> {
  assertAdmin(ctx);
  const params = parseInput(ListUsersInput, input);
  const column = { id: users.id, email: users.email, name: users.name }[params.sort_by];
  const searchColumn = params.search_by === "name" ? users.name : users.email;
  const where = params.search ? ilike(searchColumn, `%${escapeLike(params.search)}%`) : undefined;
  const order = params.sort === "asc" ? asc : desc;
  const [data, [total]] = await Promise.all([
    ctx.db.select(userColumns).from(users).where(where).orderBy(order(column), order(users.id)).limit(params.per_page).offset(offsetOf(params.page, params.per_page)),
    ctx.db.select({ n: count() }).from(users).where(where),
  ]);
  return { data, total: total?.n ?? 0, page: params.page, perPage: params.per_page };
}

/** Admin only: deletes a user with all their data (foreign keys cascade). An admin cannot delete themself. */
export async function deleteUser({ ctx, input }: { ctx: Ctx; input: UserIdInput }): Promise<{ id: number }> {
  assertAdmin(ctx);
  const { id } = parseInput(UserIdInput, input);
  if (id === ctx.actor.userId) throw new ForbiddenError("You cannot delete your own account.");
  return withTransaction(ctx, async (tx) => {
    const [deleted] = await tx.db.delete(users).where(eq(users.id, id)).returning(userColumns);
    if (!deleted) throw new NotFoundError("User");
    await recordInstanceAudit(tx, { action: "user.deleted", objectType: "user", objectId: id, before: userAuditView(deleted) });
    await notifyChange(tx.db, { kind: "keys", userId: id });
    return { id };
  });
}

/**
 * Issues a new key for the caller and revokes the one used for this request, atomically. The new key
 * inherits the old one's name, scopes and expiry: rotating a named key (CONTRACT §17) never widens it.
 * The dashboard sessions the old key opened end with it (a rotated key may have leaked).
 */
export async function rotateApiKey({ ctx, keyId }: { ctx: Ctx; keyId: number }): Promise<{ apiKey: string }> {
  return withTransaction(ctx, async (tx) => {
    const [revoked] = await tx.db
      .update(apiKeys)
      .set({ revokedAt: tx.now() })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, tx.actor.userId), sql`${apiKeys.revokedAt} is null`))
      .returning({ id: apiKeys.id, workspaceId: apiKeys.workspaceId, name: apiKeys.name, scopes: apiKeys.scopes, expiresAt: apiKeys.expiresAt });
    if (!revoked) throw new NotFoundError("API key");
    await endSessionsOfKeys(tx.db, [revoked.id]);
    await notifyChange(tx.db, { kind: "keys", userId: tx.actor.userId });
    const token = generateApiKey();
    const [created] = await tx.db
      .insert(apiKeys)
      .values({
        userId: tx.actor.userId,
        workspaceId: revoked.workspaceId,
        keyHash: sha256(token),
        prefix: token.slice(0, API_KEY_PREFIX_LENGTH),
        name: revoked.name,
        scopes: revoked.scopes,
        expiresAt: revoked.expiresAt,
        createdAt: tx.now(),
      })
      .returning({ id: apiKeys.id });
    if (!created) throw new Error("insert returned no row");
    // The key's id is what changes (its successor's, same name, scopes and expiry); never the key itself.
    await recordAudit(tx, { action: "api_key.rotated", objectType: "api_key", objectId: revoked.id, before: { id: revoked.id }, after: { id: created.id }, workspaceId: revoked.workspaceId });
    return { apiKey: token };
  });
}

/**
 * `account.rotateKey` from a dashboard session (no key was used for the request): a new key of §9 for
 * the user, shown once, and the old one (every live unnamed key of the user) revoked. A §9 key holds the
 * user's full rights, so only a session holding them may make one (403 otherwise). The sessions the old
 * key opened end, but `keepSessionId`, the one asking, which moves to the new key if the old one opened it
 * (docs/adr/0033-session-bounds.md).
 */
export async function rotateAccountKey({ ctx, keepSessionId }: { ctx: Ctx; keepSessionId: number }): Promise<{ apiKey: string }> {
  if (!hasFullRights(ctx.actor.bounds)) throw new ForbiddenError("Only your password or your account's own API key can rotate the account's key: this session has fewer rights.");
  return withTransaction(ctx, async (tx) => {
    // The account's own key lives in the user's personal workspace, whichever workspace the session acts in (docs/teams.md).
    const home = (await personalWorkspaceId(tx.db, tx.actor.userId)) ?? tx.actor.workspaceId;
    const revoked = await tx.db
      .update(apiKeys)
      .set({ revokedAt: tx.now() })
      .where(and(eq(apiKeys.userId, tx.actor.userId), eq(apiKeys.workspaceId, home), isNull(apiKeys.name), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    const token = generateApiKey();
    const [created] = await tx.db
      .insert(apiKeys)
      .values({ userId: tx.actor.userId, workspaceId: home, keyHash: sha256(token), prefix: token.slice(0, API_KEY_PREFIX_LENGTH), createdAt: tx.now() })
      .returning({ id: apiKeys.id });
    if (!created) throw new Error("insert returned no row");
    await endSessionsOfKeys(
      tx.db,
      revoked.map((key) => key.id),
      { sessionId: keepSessionId, successorKeyId: created.id },
    );
    await recordAudit(
      tx,
      revoked.length
        ? revoked.map((key) => ({ action: "api_key.rotated", objectType: "api_key", objectId: key.id, before: { id: key.id }, after: { id: created.id }, workspaceId: home }))
        : [{ action: "api_key.created", objectType: "api_key", objectId: created.id, after: { id: created.id }, workspaceId: home }],
    );
    await notifyChange(tx.db, { kind: "keys", userId: tx.actor.userId });
    return { apiKey: token };
  });
}

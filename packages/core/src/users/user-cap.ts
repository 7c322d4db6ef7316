import { count, eq, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { users } from "@shortener/db";
import { withTransaction, type Ctx } from "../context.ts";
import type { CoreError } from "../errors.ts";

/** A per-user cap: at most `max` rows of `table` matching `held` (the user's rows that count). */
export type UserCap = { table: PgTable; held: SQL | undefined; max: number; refusal: () => CoreError };

/**
 * Runs `create` only while the acting user holds fewer than `cap.max` of the capped rows, so that
 * every per-user cap (CONTRACT §15: keys, webhooks) holds under concurrency, on both drivers. In one
 * transaction: the user's row is locked (`FOR NO KEY UPDATE`: creates by the same user wait for each
 * other, while inserts elsewhere that merely reference the user are not held up), the rows are
 * counted, and `create` writes; so two creates can never both take the last place.
 */
export async function withinUserCap<T>(ctx: Ctx, cap: UserCap, create: (tx: Ctx) => Promise<T>): Promise<T> {
  return withTransaction(ctx, async (tx) => {
    await tx.db.select({ id: users.id }).from(users).where(eq(users.id, tx.actor.userId)).for("no key update");
    const [held] = await tx.db.select({ n: count() }).from(cap.table).where(cap.held);
    if ((held?.n ?? 0) >= cap.max) throw cap.refusal();
    return create(tx);
  });
}

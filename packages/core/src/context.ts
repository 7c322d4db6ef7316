import type { Db } from "@shortener/db";

export type Role = "admin" | "user";
/** Who is acting: every query on owned data filters by `userId`. */
export type Actor = { userId: number; role: Role };

export type Ctx = { db: Db; now: () => Date; actor: Actor };
/** A context with no actor: for system work (bootstrap, authentication, the visitor side). */
export type SystemCtx = { db: Db; now: () => Date };

/** Runs `fn` in a transaction; inside an outer transaction this becomes a savepoint. */
export async function withTransaction<C extends { db: Db }, T>(ctx: C, fn: (tx: C) => Promise<T>): Promise<T> {
  return ctx.db.transaction(async (tx) => fn({ ...ctx, db: tx as unknown as Db }));
}

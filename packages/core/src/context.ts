import type { Db } from "@shortener/db";
import type { ImportJob, RowError } from "./imports/import-job.ts";
import type { Link } from "./links/link-columns.ts";
import type { Bounds } from "./users/scopes.ts";

export type Role = "admin" | "user";
/**
 * Who is acting: every query on owned data filters by `userId`. `bounds`: what the key or session acting
 * may hand on at most (docs/adr/0033-session-bounds.md); absent, the user's full rights.
 */
export type Actor = { userId: number; role: Role; bounds?: Bounds };

/**
 * Renders the `data` of webhook events: the adapter's JSON of a link (CONTRACT §3) and of an import job
 * (§12), so an event carries exactly what the API answers. Core records link and import events only
 * when the context carries it (docs/adr/0023-webhooks.md).
 */
export type EventData = { link(link: Link): unknown; importJob(job: ImportJob & { errors: RowError[] }): unknown };

export type Ctx = { db: Db; now: () => Date; actor: Actor; events?: EventData };
/** A context with no actor: for system work (bootstrap, authentication, the visitor side). */
export type SystemCtx = { db: Db; now: () => Date; events?: EventData };

/** Runs `fn` in a transaction; inside an outer transaction this becomes a savepoint. */
export async function withTransaction<C extends { db: Db }, T>(ctx: C, fn: (tx: C) => Promise<T>): Promise<T> {
  return ctx.db.transaction(async (tx) => fn({ ...ctx, db: tx as unknown as Db }));
}

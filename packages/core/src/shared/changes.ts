import { sql } from "drizzle-orm";
import type { Db } from "@shortener/db";

/** The NOTIFY channel on which every change that the visitor side caches is announced. */
export const CHANGES_CHANNEL = "shortener_changes";

/** What changed: a domain by name (its cached lookups and links go), or one link by id. */
export type Change = { kind: "domain"; name: string } | { kind: "link"; id: number; domainId: number; alias: string };

/**
 * Announces a change to every process. Sent inside the caller's transaction, so Postgres delivers it
 * only when (and if) the transaction commits.
 */
export async function notifyChange(db: Db, change: Change): Promise<void> {
  await db.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify(change)})`);
}
